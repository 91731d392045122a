// All-reduce over NVLink without NCCL: every rank's buffers live in one
// continuous WholeMemory range (CUDA VMM) that every rank maps, so a kernel
// reads its peers' buffers directly. One kernel per call packs the inputs
// (float32 tensors, any number) into the rank's buffer in the wire type
// (float32, float16 or bfloat16), meets its peers at a barrier of signal
// flags in GPU memory, reduces (in float32, in rank order, so every rank
// gets bit-identical results), scales (mean) and writes the outputs.
//   one-shot: up to 1 MiB (16-bit wires: 512 KiB) each rank writes its
//             data into every peer's buffer and sums its own buffer (push:
//             no remote read after the barrier); to 6 MiB each rank reads
//             all of every peer's buffer (pull); above, streamed: 10 of each
//             block's 16 warps pack chunk after chunk and raise a progress
//             flag per chunk while the others reduce the chunks every rank
//             has packed, so local packing overlaps NVLink traffic (pushed
//             for float32 wires, pulled for 16-bit ones: each measured
//             faster on H200s);
//   two-shot: reduce-scatter then all-gather through a second barrier
//             (from 512 KiB on more than two ranks: each byte crosses NVLink
//             twice instead of n - 1 times). Pushed: each rank writes
//             segment s of its packed inputs into rank s's buffer, rank s
//             sums them (local reads) and writes the sum into every rank's
//             result buffer, so NVLink carries writes only.
// Two buffer sets alternate, so a rank never overwrites a buffer a peer may
// still be reading (it must first pass the next call's barrier, which its
// peers reach only after finishing this call). Every wait on a peer's flag is
// bounded: a rank that never arrives makes the kernel record its number in
// host memory and finish; checkError() then throws naming it.
#pragma once
#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include "wm/bootstrap.h"

namespace wm {

class DeviceWholeMemory;

enum class WireType : int { F32 = 0, F16 = 1, BF16 = 2 };
enum class AllReduceAlgo : int { Auto = 0, OneShot = 1, TwoShot = 2 };

class PeerAllReduce {
 public:
  constexpr static int kMaxRanks = 8;
  constexpr static int kMaxTensors = 64;

  // Collective. Whether every pair of the group's GPUs has peer access: the
  // same answer on every rank (each checks the whole matrix). sharedGpu:
  // whether two ranks drive one GPU (allowed by WM_SHARE_GPU=1).
  static bool supported(Bootstrap& boot, bool* sharedGpu = nullptr);
  // Collective: maps every rank's buffers (bufferBytes per buffer, four per
  // rank; they grow with larger messages, up to WM_AR_BUFFER_MAX, 64 MiB).
  PeerAllReduce(Bootstrap& boot, int64_t bufferBytes);
  ~PeerAllReduce();

  // Collective, queued on the stream: out[i] = scale * sum over ranks of in[i]
  // (float32 device arrays of counts[i] elements; in and out may alias).
  // Messages larger than a buffer go in several rounds. With params (one
  // float32 array per tensor), the SGD step is fused: out[i] = params[i] -
  // lr * scale * sum. Returns whether two-shot was used.
  bool run(const std::vector<uint64_t>& in, const std::vector<uint64_t>& out, const std::vector<int64_t>& counts, WireType wire,
           float scale, AllReduceAlgo algo, const std::vector<uint64_t>& params = {}, float lr = 0.f);
  // Throws if an earlier kernel found a rank missing (then this object is unusable).
  void checkError();
  int64_t bufferBytes() const { return bufferBytes_; }
  // Bytes at or below which Auto picks one-shot.
  int64_t oneShotMaxBytes() const { return oneShotMax_; }

 private:
  Bootstrap& boot_;
  std::unique_ptr<DeviceWholeMemory> mem_;
  int64_t bufferBytes_, sliceBytes_ = 0, oneShotMax_, pushMax_, streamAbove_;
  int streamPush_;    // streamed one-shot: push (1), pull (0) or by wire (-1)
  bool twoShotPush_;  // two-shot: pushed (WM_AR_TWO_SHOT_PUSH, default) or pulled
  int stagers_;       // streamed one-shot: packing threads
  int64_t chunkBytes_, maxBufferBytes_;
  void allocate(int64_t bufferBytes);
  int maxGrid(bool pulledOneShot, bool twoShot, bool staged, int64_t nvec) const;
  uint64_t epoch_ = 0;
  int parity_ = 0;
  int maxBlocks_ = 1;
  int minSms_ = 1, pullPerSm_ = 0;  // the pulled one-shot's grid: by size, or WM_AR_PULL_BLOCKS_PER_SM blocks per SM
  int twoShotPerSm_ = 1;            // the two-shot's blocks per SM (WM_AR_TWO_SHOT_BLOCKS_PER_SM)
  int twoShotStages_ = 1;           // the two-shot's stages per round (WM_AR_TWO_SHOT_STAGES)
  int64_t stagedFrom_ = 0;          // the round's bytes from which it goes in stages (WM_AR_TWO_SHOT_STAGED_FROM)
  int* errHost_ = nullptr;
  int* errDev_ = nullptr;
  int64_t timeoutNs_;
  std::string broken_;
};

}  // namespace wm
