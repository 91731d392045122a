#include "wm/peer_allreduce.h"

#include <algorithm>
#include <cstdlib>

#include "collectives/allreduce_device.cuh"
#include "runtime/gpu_sharing.h"
#include "wm/device_whole_memory.h"

namespace wm {
namespace {

using ar::kArThreads;
using ar::kChunkSpan;
using ar::kMaxBlocks;
using ar::kMaxGridBlocks;
using ar::kSignalBytes;

int64_t envBytes(const char* name, int64_t fallback) {
  const char* v = std::getenv(name);
  return v && *v ? std::atoll(v) : fallback;
}

enum class Kernel { OneShotPush, OneShotPull, Stream, StreamPush, TwoShot, TwoShotPush };

// One vector per thread for small messages (latency); for large ones, up to
// maxBlocks (PeerAllReduce::maxGrid: the same on every rank, since block b
// meets block b) keeps NVLink busy, barriers stay cheap.
void launch(Kernel kind, WireType wire, const ar::Params& p, const ar::Tensors& t, int maxBlocks) {
  const bool twoShot = kind == Kernel::TwoShot || kind == Kernel::TwoShotPush;
  int64_t perBlock = twoShot ? 2 * kArThreads : kArThreads;
  if (kind == Kernel::Stream || kind == Kernel::StreamPush) perBlock = p.chunkVecs;
  const int blocks = static_cast<int>(std::clamp<int64_t>((p.nvec + perBlock - 1) / perBlock, 1, maxBlocks));
  switch (kind) {
    case Kernel::TwoShot:
      ar::launchTwoShot(false, wire, blocks, p, t);
      break;
    case Kernel::TwoShotPush:
      ar::launchTwoShot(true, wire, blocks, p, t);
      break;
    case Kernel::OneShotPush:
      ar::launchOneShot(true, wire, blocks, p, t);
      break;
    case Kernel::OneShotPull:
      ar::launchOneShot(false, wire, blocks, p, t);
      break;
    case Kernel::Stream:
      ar::launchOneShotStream(false, wire, blocks, p, t);
      break;
    case Kernel::StreamPush:
      ar::launchOneShotStream(true, wire, blocks, p, t);
      break;
  }
}

}  // namespace

bool PeerAllReduce::supported(Bootstrap& boot, bool* sharedGpu) {
  const std::vector<RankGpu> gpus = groupGpus(boot, "allReduce (devices)");
  if (sharedGpu) *sharedGpu = sharedGpuRanks(gpus).has_value();
  // Peer access joins the GPUs of one host: a group over hosts reduces through NCCL.
  if (boot.size() > kMaxRanks || !boot.sameHost()) return false;
  for (const RankGpu& a : gpus)
    for (const RankGpu& b : gpus) {
      if (a.device == b.device) continue;
      int can = 0;
      if (cudaDeviceCanAccessPeer(&can, a.device, b.device) != cudaSuccess || !can) {
        cudaGetLastError();
        return false;
      }
    }
  return true;
}

PeerAllReduce::PeerAllReduce(Bootstrap& boot, int64_t bufferBytes)
    : boot_(boot),
      bufferBytes_(bufferBytes),
      // Measured (bench:allreduce, H200 NVLink): with two ranks two-shot moves
      // the same bytes as one-shot plus a second barrier, so one-shot always;
      // with more, two-shot wins from about half a MiB.
      oneShotMax_(envBytes("WM_AR_ONESHOT_MAX", boot.size() <= 2 ? int64_t{1} << 62 : int64_t{512} << 10)),
      // -1: by wire type (see run()).
      pushMax_(envBytes("WM_AR_PUSH_MAX", -1)),
      // Measured on 2 x H200 (10 packing warps, 32 KiB chunks; pulled with
      // two blocks per SM, two alternated runs): pulled 6 MiB
      // bfloat16 28.5-28.6 µs against 30.6 streamed, float32 27.6-27.7
      // against 28.8-28.9; 8 MiB bfloat16 37.8 against 36.5-36.9.
      streamAbove_(envBytes("WM_AR_STREAM_ABOVE", int64_t{6} << 20)),
      streamPush_(static_cast<int>(envBytes("WM_AR_STREAM_PUSH", -1))),
      // Measured on 4 x H100 in one call (pushed against pulled): bfloat16 1 / 4 / 16 / 64 MiB
      // 18.6 / 35.7 / 103.6 / 385.6 µs against 23.6 / 41.5 / 132.2 / 471.3; float32 4 / 16 / 64 MiB
      // 33.6 / 92.7 / 339.7 against 40.6 / 127.3 / 454.0.
      twoShotPush_(envBytes("WM_AR_TWO_SHOT_PUSH", 1) != 0),
      // 10 of 16 warps packing, 32 KiB per flag: of 4-12 warps and 24-192 KiB
      // the fastest at 16-256 MiB (bfloat16 16 MiB: 63.7 µs; 8 warps and 48
      // KiB 68.4, 4 warps 80, 192 KiB 91; bench/results/allreduce-2xh200-2026-11-23-0520-tuning.txt).
      stagers_(32 * static_cast<int>(std::clamp<int64_t>(envBytes("WM_AR_STAGER_WARPS", 10), 1, kArThreads / 32 - 1))),
      chunkBytes_(std::max<int64_t>(16, envBytes("WM_AR_CHUNK_BYTES", 32 << 10))),
      maxBufferBytes_(std::max(bufferBytes, envBytes("WM_AR_BUFFER_MAX", int64_t{64} << 20) / 256 * 256)) {
  WM_REQUIRE(boot.size() <= kMaxRanks, "allReduce: the peer-to-peer path serves at most 8 ranks");
  WM_REQUIRE(bufferBytes > 0 && bufferBytes % 256 == 0, "allReduce: the buffer size must be a positive multiple of 256");
  timeoutNs_ = static_cast<int64_t>(boot.timeoutMs()) * 1000000;
  const int sms = multiprocessorCount();
  minSms_ = kMaxBlocks;
  for (auto& s : boot.allgather(std::to_string(sms), "allReduce (SM counts)")) minSms_ = std::min(minSms_, std::max(1, std::stoi(s)));
  maxBlocks_ = std::min(kMaxGridBlocks, minSms_);
  // At most two: every block must be resident at once (see kMaxBlocks).
  pullPerSm_ = static_cast<int>(std::clamp<int64_t>(envBytes("WM_AR_PULL_BLOCKS_PER_SM", 0), 0, 2));
  // Two-shot: two blocks per SM, measured on 4 x H100 in one call (two alternated runs each, µs):
  // float32 16 / 64 MiB 89.5-90.1 / 331.4-332.0 against 91.9-92.7 / 340.1-340.5 with one; bfloat16
  // 16 MiB 97.8-98.7 against 102.6, 64 MiB 388.1-389.9 against 384.4-385.1; 1-4 MiB alike.
  twoShotPerSm_ = static_cast<int>(std::clamp<int64_t>(envBytes("WM_AR_TWO_SHOT_BLOCKS_PER_SM", 2), 1, 2));
  // The two-shot in stages, for rounds from 32 MiB (allreduce_two_shot.cu). Measured on 4 x H100, two
  // alternated runs each, µs per call (one stage; 2 / 3 / 4 stages): bfloat16 64 MiB 353.4-357.9;
  // 320.2-321.2 / 353.8-354.5 / 321.7-323.1; float32 64 MiB 315.5-317.6; 302.6-302.7 / 335.2-335.7 /
  // 306.0-306.8 (NCCL from C++ 328.0-329.6); 16 MiB: bfloat16 92.8-93.5; 98.8-99.1 / 118.8-119.1 /
  // 108.6-122.2, float32 87.2-87.9; 92.9-93.4 / 113.5-114.5 / 103.1-103.6.
  twoShotStages_ = static_cast<int>(std::clamp<int64_t>(envBytes("WM_AR_TWO_SHOT_STAGES", 2), 1, 8));
  stagedFrom_ = envBytes("WM_AR_TWO_SHOT_STAGED_FROM", int64_t{32} << 20);
  WM_CUDA(cudaHostAlloc(&errHost_, sizeof(int), cudaHostAllocMapped));
  *errHost_ = 0;
  WM_CUDA(cudaHostGetDevicePointer(reinterpret_cast<void**>(&errDev_), errHost_, 0));
  allocate(bufferBytes);
}

// Collective: (re)maps every rank's buffers, four of bufferBytes (input and
// result, twice) after the signal flags, all zero. Callers have made sure no
// kernel of any rank still uses the old ones.
void PeerAllReduce::allocate(int64_t bufferBytes) {
  mem_.reset();
  bufferBytes_ = bufferBytes;
  int64_t bytes = kSignalBytes + 4 * bufferBytes;
  mem_ = std::make_unique<DeviceWholeMemory>(boot_, MemoryType::Continuous, boot_.size(), bytes, 1);
  sliceBytes_ = mem_->rowsPerRank() * bytes;
  WM_CUDA(cudaMemsetAsync(reinterpret_cast<void*>(mem_->localSlice()), 0, kSignalBytes, stream()));
  parity_ = 0;
  synchronize();
  boot_.barrier("allReduce (buffers ready)");
}

// The most blocks a round's kernel may launch: one per SM of the GPU with the
// fewest (at most kMaxGridBlocks); the pulled one-shot and the two-shot may
// launch two (at most kMaxBlocks, the flag slots; their kernels keep to 64
// registers so all are resident at once). The pulled one-shot, measured on
// 2 x H200 (three alternated runs): two blocks per SM pay once a thread
// would pull four vectors with one (4 MiB: bfloat16 22.1-22.6 µs against
// 23.3-23.4, float32 20.8-20.9 against 21.7-21.8) and lose below (bfloat16
// 2 MiB: 17.1-17.4 against 16.0-16.2). A two-shot in several stages takes up to 128 registers a
// thread and runs one block per SM (allreduce_two_shot.cu).
int PeerAllReduce::maxGrid(bool pulledOneShot, bool twoShot, bool staged, int64_t nvec) const {
  auto perSm = [&](int k) { return std::min(kMaxBlocks, k * minSms_); };
  if (pulledOneShot) return perSm(pullPerSm_ > 0 ? pullPerSm_ : nvec >= int64_t{4} * kArThreads * maxBlocks_ ? 2 : 1);
  if (twoShot && !staged && twoShotPerSm_ > 1) return perSm(twoShotPerSm_);
  return maxBlocks_;
}

PeerAllReduce::~PeerAllReduce() {
  cudaStreamSynchronize(stream());
  mem_.reset();
  if (errHost_) cudaFreeHost(errHost_);
}

void PeerAllReduce::checkError() {
  if (!broken_.empty()) fail(broken_);
  int e = *reinterpret_cast<volatile int*>(errHost_);
  if (e != 0) {
    broken_ = "allReduce: rank " + std::to_string(e - 1) + " did not reach the all-reduce within " + std::to_string(boot_.timeoutMs()) +
              " ms (it exited, or called something else); the peer-to-peer all-reduce of this communicator is unusable";
    fail(broken_);
  }
}

bool PeerAllReduce::run(const std::vector<uint64_t>& in, const std::vector<uint64_t>& out, const std::vector<int64_t>& counts,
                        WireType wire, float scale, AllReduceAlgo algo, const std::vector<uint64_t>& params, float lr) {
  checkError();
  WM_REQUIRE(in.size() == out.size() && in.size() == counts.size(), "allReduce: one input, output and count per tensor");
  WM_REQUIRE(params.empty() || params.size() == in.size(), "allReduce: one parameter per tensor for the fused SGD step");
  const int elemBytes = wire == WireType::F32 ? 4 : 2;
  const int V = 16 / elemBytes;
  ar::Params p{};
  p.rank = boot_.rank();
  p.ranks = boot_.size();
  p.scale = scale;
  p.lr = lr;
  p.timeoutNs = static_cast<unsigned long long>(timeoutNs_);
  p.err = errDev_;
  // Buffers grow (collectively: every rank sees the same counts) to the
  // message, up to maxBufferBytes_: each extra round costs a barrier and a
  // pipeline's fill and drain (bfloat16, 64 MiB on 2 x H200: 306 µs in four
  // rounds of 16 MiB, 274 in one).
  int64_t need = 0;
  for (size_t first = 0; first < in.size(); first += kMaxTensors) {
    int64_t vecs = 0;
    for (size_t i = first; i < std::min(in.size(), first + kMaxTensors); ++i) vecs += (counts[i] + V - 1) / V;
    need = std::max(need, vecs * 16);
  }
  if (need > bufferBytes_ && bufferBytes_ < maxBufferBytes_) {
    int64_t grown = bufferBytes_;
    while (grown < need && grown < maxBufferBytes_) grown *= 2;
    synchronize();
    boot_.barrier("allReduce (growing buffers)");
    try {
      allocate(std::min(grown, maxBufferBytes_));
    } catch (const std::exception& e) {
      broken_ = std::string("allReduce: growing the peer-to-peer buffers failed (") + e.what() +
                "); set WM_AR_BUFFER_MAX lower; the peer-to-peer all-reduce of this communicator is unusable";
      throw;
    }
  }
  p.base = reinterpret_cast<uint8_t*>(mem_->table().ptr);
  p.slice = sliceBytes_;
  const int64_t bufVecs = bufferBytes_ / 16;
  p.slotBytes = 2 * bufferBytes_ / p.ranks / 256 * 256;
  bool usedTwoShot = false;
  // Tensors go in batches of kMaxTensors; a batch's vectors in rounds of a buffer.
  for (size_t first = 0; first < in.size(); first += kMaxTensors) {
    ar::Tensors t{};
    t.n = static_cast<int>(std::min<size_t>(kMaxTensors, in.size() - first));
    t.firstVec[0] = 0;
    for (int i = 0; i < t.n; ++i) {
      t.in[i] = reinterpret_cast<const float*>(in[first + i]);
      t.out[i] = reinterpret_cast<float*>(out[first + i]);
      t.param[i] = params.empty() ? nullptr : reinterpret_cast<const float*>(params[first + i]);
      t.count[i] = counts[first + i];
      t.firstVec[i + 1] = t.firstVec[i] + (counts[first + i] + V - 1) / V;
    }
    const int64_t total = t.firstVec[t.n];
    const bool twoShot = algo == AllReduceAlgo::TwoShot || (algo == AllReduceAlgo::Auto && total * 16 > oneShotMax_ && p.ranks > 1);
    usedTwoShot |= twoShot;
    // Measured on 2 x H200: float32 pushes to 1 MiB; a 16-bit wire pulls 1 MiB
    // faster (bfloat16 12.4 µs against 14.2 pushed, three runs alike).
    const int64_t pushMax = pushMax_ >= 0 ? pushMax_ : wire == WireType::F32 ? int64_t{1} << 20 : int64_t{512} << 10;
    // Measured on 2 x H200: the streamed kernel pushes float32 (16 / 32 MiB:
    // 59.3 / 105.8 µs against 62.5 / 112.2 pulled) and pulls 16-bit wires
    // (bfloat16 16 / 32 / 64 MiB: 68.7 / 120.0 / 221.4 against 82.0 / 135.0 / 236.0).
    const bool streamPush = streamPush_ == 1 || (streamPush_ < 0 && wire == WireType::F32);
    const Kernel kind = twoShot                      ? (twoShotPush_ ? Kernel::TwoShotPush : Kernel::TwoShot)
                        : total * 16 <= pushMax      ? Kernel::OneShotPush
                        : total * 16 <= streamAbove_ ? Kernel::OneShotPull
                        : streamPush                 ? Kernel::StreamPush
                                                     : Kernel::Stream;
    // Pushed one-shot rounds: R slots fill a parity's two buffers; two-shot rounds: whole segments of
    // whole stages (pushed, R slots of a segment fill the input buffer).
    const int64_t roundVecs = kind == Kernel::OneShotPush || kind == Kernel::StreamPush ? p.slotBytes / 16
                              : twoShot ? bufVecs / (int64_t{p.ranks} * twoShotStages_) * (int64_t{p.ranks} * twoShotStages_)
                                        : bufVecs;
    p.stagers = stagers_;
    // A block's chunks must fit its progress flag's span.
    p.chunkVecs = std::max<int64_t>(chunkBytes_ / 16, (roundVecs / std::max(1, maxBlocks_) + 1) / (kChunkSpan - 1) + 1);
    for (int64_t begin = 0; begin < total; begin += roundVecs) {
      p.vecBegin = begin;
      p.nvec = std::min(roundVecs, total - begin);
      // A stage's segments fill whole slots (stageVecs a multiple of the ranks); stages * stageVecs <= roundVecs.
      const int stages = twoShot && p.nvec * 16 >= stagedFrom_ ? twoShotStages_ : 1;
      p.stageVecs = ((p.nvec + stages - 1) / stages + p.ranks - 1) / p.ranks * p.ranks;
      p.epoch = epoch_ + 1;
      epoch_ += ar::stageCount(p);  // one epoch per stage
      p.inOff = kSignalBytes + parity_ * 2 * bufferBytes_;
      p.resOff = p.inOff + bufferBytes_;
      parity_ ^= 1;
      launch(kind, wire, p, t, maxGrid(kind == Kernel::OneShotPull, twoShot, ar::stageCount(p) > 1, p.nvec));
    }
  }
  return usedTwoShot;
}

}  // namespace wm
