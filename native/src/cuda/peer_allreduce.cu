#include "wm/peer_allreduce.h"

#include <algorithm>
#include <cstdlib>

#include "check.h"
#include "launch.cuh"
#include "wm/device_whole_memory.h"
#include "wm/embedding_math.h"
#include "wm/runtime.h"

namespace wm {
namespace {

constexpr int kMaxBlocks = 128;
constexpr int kArThreads = 512;
constexpr int64_t kSignalBytes = 64 << 10;
constexpr int kMaxRanks = PeerAllReduce::kMaxRanks;
constexpr int kMaxTensors = PeerAllReduce::kMaxTensors;

// The tensors of one call, flattened: tensor i covers wire vectors
// [firstVec[i], firstVec[i + 1]), each tensor starting on a fresh vector.
struct Tensors {
  const float* in[kMaxTensors];
  float* out[kMaxTensors];
  const float* param[kMaxTensors];  // fused SGD: out = param - lr * reduced (null: out = reduced)
  int64_t count[kMaxTensors];
  int64_t firstVec[kMaxTensors + 1];
  int n;
};

struct Params {
  uint8_t* base;        // rank q's slice at base + q * slice
  int64_t slice;
  int64_t inOff, resOff;  // this round's buffers within a slice
  int64_t slotBytes;      // one-shot: rank q's data lands at inOff + q * slotBytes of every slice
  int rank, ranks;
  uint64_t epoch;  // 64-bit: a flag some block has not touched for billions of rounds still reads as behind
  int64_t vecBegin, nvec;  // this round's vectors
  float scale;
  float lr;
  int64_t chunkVecs;  // streamed one-shot: vectors per flag
  int stagers;        // streamed one-shot: threads that pack (the rest reduce)
  unsigned long long timeoutNs;
  int* err;  // host-mapped: 1 + the rank that never arrived
};

__device__ __forceinline__ uint64_t loadAcquire(const uint64_t* p) {
  uint64_t v;
  asm volatile("ld.acquire.sys.global.u64 %0, [%1];" : "=l"(v) : "l"(p) : "memory");
  return v;
}
__device__ __forceinline__ void storeRelease(uint64_t* p, uint64_t v) {
  asm volatile("st.release.sys.global.u64 [%0], %1;" ::"l"(p), "l"(v) : "memory");
}
__device__ __forceinline__ unsigned long long globalNs() {
  unsigned long long t;
  asm volatile("mov.u64 %0, %globaltimer;" : "=l"(t));
  return t;
}

__device__ __forceinline__ uint64_t* flag(const Params& p, int owner, int phase, int block, int from) {
  return reinterpret_cast<uint64_t*>(p.base + owner * p.slice) + (phase * kMaxBlocks + block) * kMaxRanks + from;
}

// Spins until *f reaches target (flags only grow). Bounded:
// after the timeout, or once another wait has given up, rank q is recorded as
// missing and the wait ends.
__device__ void waitFlag(const Params& p, const uint64_t* f, uint64_t target, int q) {
  unsigned long long start = 0;
  for (uint32_t spin = 0; loadAcquire(f) < target; ++spin) {
    if ((spin & 1023) != 1023) continue;
    unsigned long long now = globalNs();
    if (start == 0) start = now;
    volatile int* err = p.err;
    if (*err != 0 || now - start > p.timeoutNs) {
      atomicCAS_system(p.err, 0, q + 1);
      return;
    }
  }
}

// Block b of every rank meets here: its writes before (of every thread of the
// block, remote writes included: the release at system scope after the
// block's barrier covers them) are visible to block b of every peer after.
__device__ void barrier(const Params& p, int phase) {
  __syncthreads();
  const int q = threadIdx.x;
  if (q < p.ranks) {
    storeRelease(flag(p, q, phase, blockIdx.x, p.rank), p.epoch);
    waitFlag(p, flag(p, p.rank, phase, blockIdx.x, q), p.epoch, q);
  }
  __syncthreads();
}

template <typename T>
struct Wire {
  static constexpr int V = 16 / sizeof(T);
  struct alignas(16) Pack {
    T v[V];
  };
};

__device__ __forceinline__ int tensorOf(const Tensors& t, int64_t v) {
  int lo = 0, hi = t.n - 1;
  while (lo < hi) {
    int mid = (lo + hi + 1) >> 1;
    if (t.firstVec[mid] <= v) lo = mid;
    else hi = mid - 1;
  }
  return lo;
}

// Reads vector v (flat) of the inputs as floats; past a tensor's end, zeros.
template <int V>
__device__ __forceinline__ void loadInput(const Tensors& t, int64_t v, float (&x)[V]) {
  int i = tensorOf(t, v);
  int64_t e0 = (v - t.firstVec[i]) * V;
  const float* src = t.in[i] + e0;
  int64_t valid = t.count[i] - e0;
  if (valid >= V && (reinterpret_cast<uintptr_t>(src) & 15) == 0) {
#pragma unroll
    for (int k = 0; k < V; k += 4) {
      float4 f = *reinterpret_cast<const float4*>(src + k);
      x[k] = f.x, x[k + 1] = f.y, x[k + 2] = f.z, x[k + 3] = f.w;
    }
  } else {
#pragma unroll
    for (int k = 0; k < V; ++k) x[k] = k < valid ? src[k] : 0.f;
  }
}

template <int V>
__device__ __forceinline__ void storeOutput(const Tensors& t, int64_t v, float (&x)[V], float lr) {
  int i = tensorOf(t, v);
  int64_t e0 = (v - t.firstVec[i]) * V;
  float* dst = t.out[i] + e0;
  int64_t valid = t.count[i] - e0;
  if (const float* param = t.param[i]) {
#pragma unroll
    for (int k = 0; k < V; ++k)
      if (k < valid) x[k] = param[e0 + k] - lr * x[k];
  }
  if (valid >= V && (reinterpret_cast<uintptr_t>(dst) & 15) == 0) {
#pragma unroll
    for (int k = 0; k < V; k += 4) *reinterpret_cast<float4*>(dst + k) = make_float4(x[k], x[k + 1], x[k + 2], x[k + 3]);
  } else {
#pragma unroll
    for (int k = 0; k < V; ++k)
      if (k < valid) dst[k] = x[k];
  }
}

template <typename T>
__device__ __forceinline__ typename Wire<T>::Pack pack(const float (&x)[Wire<T>::V]) {
  typename Wire<T>::Pack w;
#pragma unroll
  for (int k = 0; k < Wire<T>::V; ++k) w.v[k] = fromFloat<T>(x[k]);
  return w;
}

template <typename T>
__device__ __forceinline__ typename Wire<T>::Pack* area(const Params& p, int owner, int64_t off) {
  return reinterpret_cast<typename Wire<T>::Pack*>(p.base + owner * p.slice + off);
}

// Sum over ranks, in rank order, of vector v of rank q's contribution, found
// at area<T>(p, owner(q), offset(q)) (the same on every rank: every rank gets
// the same bits). R (the number of ranks) is a template argument so that the
// R loads are issued together, not one after another.
template <typename T, int R, typename Owner, typename Offset>
__device__ __forceinline__ void loadPeers(const Params& p, int64_t v, Owner owner, Offset offset, uint4 (&raw)[R]) {
#pragma unroll
  for (int q = 0; q < R; ++q) raw[q] = __ldcg(reinterpret_cast<const uint4*>(area<T>(p, owner(q), offset(q)) + v));
}

template <typename T, int R>
__device__ __forceinline__ void sumPeers(const Params& p, const uint4 (&raw)[R], float (&acc)[Wire<T>::V]) {
  constexpr int V = Wire<T>::V;
#pragma unroll
  for (int k = 0; k < V; ++k) acc[k] = 0.f;
#pragma unroll
  for (int q = 0; q < R; ++q) {
    const auto& w = *reinterpret_cast<const typename Wire<T>::Pack*>(&raw[q]);
#pragma unroll
    for (int k = 0; k < V; ++k) acc[k] += toFloat(w.v[k]);
  }
#pragma unroll
  for (int k = 0; k < V; ++k) acc[k] *= p.scale;
}

template <typename T, int R, typename Owner, typename Offset>
__device__ __forceinline__ void reduceVec(const Params& p, int64_t v, Owner owner, Offset offset, float (&acc)[Wire<T>::V]) {
  uint4 raw[R];
  loadPeers<T, R>(p, v, owner, offset, raw);
  sumPeers<T, R>(p, raw, acc);
}

// This block's share of vectors [lo, hi): same split on every rank.
__device__ __forceinline__ void blockRange(int64_t lo, int64_t hi, int64_t& a, int64_t& b) {
  int64_t per = (hi - lo + gridDim.x - 1) / gridDim.x;
  a = min(hi, lo + per * blockIdx.x);
  b = min(hi, a + per);
}

// Packs vectors lo + tid, lo + tid + n, ... (below hi) of the inputs and
// hands each to store(v, packed). U vectors' loads are issued before any is
// packed: one vector at a time left a block's packing latency-bound (its
// loads and the stores to the buffer could alias, so the compiler keeps them
// in order).
template <typename T, int U = 4, typename Store>
__device__ __forceinline__ void packRange(const Params& p, const Tensors& t, int64_t lo, int64_t hi, int tid, int n, Store store) {
  constexpr int V = Wire<T>::V;
  for (int64_t v0 = lo + tid; v0 < hi; v0 += int64_t{n} * U) {
    float x[U][V];
#pragma unroll
    for (int u = 0; u < U; ++u)
      if (v0 + u * n < hi) loadInput<V>(t, p.vecBegin + v0 + u * n, x[u]);
#pragma unroll
    for (int u = 0; u < U; ++u)
      if (v0 + u * n < hi) store(v0 + u * n, pack<T>(x[u]));
  }
}

// Reduces vectors lo + tid, lo + tid + n, ... (below hi) over the ranks (see
// loadPeers) into the outputs, R x U loads in flight per thread.
template <typename T, int R, int Unroll = 4, typename Owner, typename Offset>
__device__ __forceinline__ void reduceRange(const Params& p, const Tensors& t, int64_t lo, int64_t hi, int tid, int n, Owner owner,
                                            Offset offset) {
  constexpr int V = Wire<T>::V;
  constexpr int U = R <= 2 ? Unroll : R <= 4 ? (Unroll + 1) / 2 : 1;  // within 128 registers
  for (int64_t v0 = lo + tid; v0 < hi; v0 += int64_t{n} * U) {
    uint4 raw[U][R];
#pragma unroll
    for (int u = 0; u < U; ++u)
      if (v0 + u * n < hi) loadPeers<T, R>(p, v0 + u * n, owner, offset, raw[u]);
#pragma unroll
    for (int u = 0; u < U; ++u) {
      if (v0 + u * n >= hi) break;
      float acc[V];
      sumPeers<T, R>(p, raw[u], acc);
      storeOutput<V>(t, p.vecBegin + v0 + u * n, acc, p.lr);
    }
  }
}

// One-shot by pushing (small messages): every rank writes its packed vectors
// straight into its slot of every rank's buffer (NVLink writes are posted;
// nothing waits for a reply), meets the peers, then sums the R slots of its
// own buffer in rank order from local memory. Pulling puts a remote read's
// round trip after the barrier: 2 x H200, 1 KiB to 1 MiB, 9.5-13.4 µs per call
// pulled against 6.4-8.6 pushed (float32).
template <typename T, int R>
__global__ void __launch_bounds__(kArThreads) oneShotPushKernel(Params p, Tensors t) {
  int64_t a, b;
  blockRange(0, p.nvec, a, b);
  const int64_t mySlot = p.inOff + p.rank * p.slotBytes;
  packRange<T>(p, t, a, b, threadIdx.x, blockDim.x, [&](int64_t v, const typename Wire<T>::Pack& w) {
#pragma unroll
    for (int k = 0; k < R; ++k) {
      // Own slot first, then the following ranks: the R writers of a slice spread out.
      const int q = p.rank + k < R ? p.rank + k : p.rank + k - R;
      area<T>(p, q, mySlot)[v] = w;
    }
  });
  barrier(p, 0);
  reduceRange<T, R>(p, t, a, b, threadIdx.x, blockDim.x, [&](int) { return p.rank; }, [&](int q) { return p.inOff + q * p.slotBytes; });
}

// One-shot by pulling (large messages): pack into this rank's own buffer,
// meet, read every rank's buffer. Measured against pushing on 2 x H200
// (bfloat16 wire): 4 MiB 23.1 against 32.8 µs, 16 MiB 77.6 against 82.3,
// 64 MiB 305.9 against 325.9; pushing in 8 chunks per block, each with its
// own flag so a chunk's sums overlap the next chunk's writes, was slower
// still (99.3 and 390.0).
// One vector per thread at a time here: batching four (as the other kernels
// do) made bfloat16 2-8 MiB slower on 2 x H200 (19.3 / 31.2 / 46.2 µs against
// 15.6 / 23.1 / 40.0).
template <typename T, int R>
__global__ void __launch_bounds__(kArThreads) oneShotPullKernel(Params p, Tensors t) {
  int64_t a, b;
  blockRange(0, p.nvec, a, b);
  auto* mine = area<T>(p, p.rank, p.inOff);
  packRange<T, 1>(p, t, a, b, threadIdx.x, blockDim.x, [&](int64_t v, const typename Wire<T>::Pack& w) { mine[v] = w; });
  barrier(p, 0);
  reduceRange<T, R, 1>(p, t, a, b, threadIdx.x, blockDim.x, [](int q) { return q; }, [&](int) { return p.inOff; });
}

__device__ __forceinline__ void namedBarrier(int id, int threads) {
  asm volatile("bar.sync %0, %1;" ::"r"(id), "r"(threads) : "memory");
}

// Streamed one-shot (large messages): the block's warps split in two groups
// that run at once. Packers pack the block's share chunk by chunk (Push: into
// this rank's slot of every rank's buffer; else into its own buffer) and
// after each chunk raise this block's progress flag on every rank; reducers
// follow, reducing chunk c once every rank's block has packed it. Local
// packing then overlaps NVLink traffic instead of preceding it.
constexpr uint64_t kChunkSpan = 4096;  // progress flag = epoch * kChunkSpan + chunks done

template <typename T, int R, bool Push>
__global__ void __launch_bounds__(kArThreads) oneShotStreamKernel(Params p, Tensors t) {
  int64_t a, b;
  blockRange(0, p.nvec, a, b);
  const int chunks = static_cast<int>((b - a + p.chunkVecs - 1) / p.chunkVecs);
  const uint64_t base = p.epoch * kChunkSpan;
  const int64_t mySlot = Push ? p.inOff + p.rank * p.slotBytes : p.inOff;
  if (static_cast<int>(threadIdx.x) < p.stagers) {
    for (int c = 0; c < chunks; ++c) {
      const int64_t lo = a + c * p.chunkVecs;
      packRange<T>(p, t, lo, min(b, lo + p.chunkVecs), threadIdx.x, p.stagers, [&](int64_t v, const typename Wire<T>::Pack& w) {
        if (Push) {
#pragma unroll
          for (int k = 0; k < R; ++k) {
            const int q = p.rank + k < R ? p.rank + k : p.rank + k - R;
            area<T>(p, q, mySlot)[v] = w;
          }
        } else {
          area<T>(p, p.rank, mySlot)[v] = w;
        }
      });
      namedBarrier(1, p.stagers);
      if (static_cast<int>(threadIdx.x) < R) storeRelease(flag(p, threadIdx.x, 2, blockIdx.x, p.rank), base + c + 1);
    }
    return;
  }
  const int tid = threadIdx.x - p.stagers, n = blockDim.x - p.stagers;
  for (int c = 0; c < chunks; ++c) {
    if (tid < R) waitFlag(p, flag(p, p.rank, 2, blockIdx.x, tid), base + c + 1, tid);
    namedBarrier(2, n);
    const int64_t lo = a + c * p.chunkVecs;
    reduceRange<T, R>(p, t, lo, min(b, lo + p.chunkVecs), tid, n, [&](int q) { return Push ? p.rank : q; },
                      [&](int q) { return Push ? p.inOff + q * p.slotBytes : p.inOff; });
  }
}

template <typename T, int R>
__global__ void __launch_bounds__(kArThreads) twoShotKernel(Params p, Tensors t) {
  constexpr int V = Wire<T>::V;
  int64_t seg = (p.nvec + p.ranks - 1) / p.ranks;
  auto* mine = area<T>(p, p.rank, p.inOff);
  // Block b packs chunk b of every segment: exactly what block b of the
  // segment's owner will read.
  for (int s = 0; s < p.ranks; ++s) {
    int64_t a, b;
    blockRange(min(p.nvec, s * seg), min(p.nvec, (s + 1) * seg), a, b);
    packRange<T>(p, t, a, b, threadIdx.x, blockDim.x, [&](int64_t v, const typename Wire<T>::Pack& w) { mine[v] = w; });
  }
  barrier(p, 0);
  {
    int64_t a, b;
    blockRange(min(p.nvec, p.rank * seg), min(p.nvec, (p.rank + 1) * seg), a, b);
    auto* result = area<T>(p, p.rank, p.resOff);
    for (int64_t v = a + threadIdx.x; v < b; v += blockDim.x) {
      float acc[V];
      reduceVec<T, R>(p, v, [](int q) { return q; }, [&](int) { return p.inOff; }, acc);
      result[v] = pack<T>(acc);
    }
  }
  barrier(p, 1);
  for (int s = 0; s < p.ranks; ++s) {
    int64_t a, b;
    blockRange(min(p.nvec, s * seg), min(p.nvec, (s + 1) * seg), a, b);
    const auto* theirs = area<T>(p, s, p.resOff);
    for (int64_t v = a + threadIdx.x; v < b; v += blockDim.x) {
      typename Wire<T>::Pack w;
      *reinterpret_cast<uint4*>(&w) = __ldcg(reinterpret_cast<const uint4*>(theirs + v));
      float x[V];
#pragma unroll
      for (int k = 0; k < V; ++k) x[k] = toFloat(w.v[k]);
      storeOutput<V>(t, p.vecBegin + v, x, p.lr);
    }
  }
}

int64_t envBytes(const char* name, int64_t fallback) {
  const char* v = std::getenv(name);
  return v && *v ? std::atoll(v) : fallback;
}

enum class Kernel { OneShotPush, OneShotPull, Stream, StreamPush, TwoShot };

// One vector per thread for small messages (latency); for large ones, up to
// one block per SM (the fewest any rank has: block b meets block b, so every
// rank must launch the same grid) keeps NVLink busy, barriers stay cheap.
template <typename T, int R>
void launchRanks(Kernel kind, const Params& p, const Tensors& t, int maxBlocks) {
  const bool twoShot = kind == Kernel::TwoShot;
  int64_t perBlock = twoShot ? 2 * kArThreads : kArThreads;
  int blocks = static_cast<int>(std::clamp<int64_t>((p.nvec + perBlock - 1) / perBlock, 1, maxBlocks));
  if (kind == Kernel::Stream || kind == Kernel::StreamPush)
    blocks = static_cast<int>(std::clamp<int64_t>((p.nvec + p.chunkVecs - 1) / p.chunkVecs, 1, maxBlocks));
  switch (kind) {
    case Kernel::TwoShot: twoShotKernel<T, R><<<blocks, kArThreads, 0, stream()>>>(p, t); break;
    case Kernel::OneShotPush: oneShotPushKernel<T, R><<<blocks, kArThreads, 0, stream()>>>(p, t); break;
    case Kernel::OneShotPull: oneShotPullKernel<T, R><<<blocks, kArThreads, 0, stream()>>>(p, t); break;
    case Kernel::Stream: oneShotStreamKernel<T, R, false><<<blocks, kArThreads, 0, stream()>>>(p, t); break;
    case Kernel::StreamPush: oneShotStreamKernel<T, R, true><<<blocks, kArThreads, 0, stream()>>>(p, t); break;
  }
  WM_CUDA_LAUNCHED();
}

template <typename T>
void launch(Kernel kind, const Params& p, const Tensors& t, int maxBlocks) {
  switch (p.ranks) {
    case 1: launchRanks<T, 1>(kind, p, t, maxBlocks); break;
    case 2: launchRanks<T, 2>(kind, p, t, maxBlocks); break;
    case 3: launchRanks<T, 3>(kind, p, t, maxBlocks); break;
    case 4: launchRanks<T, 4>(kind, p, t, maxBlocks); break;
    case 5: launchRanks<T, 5>(kind, p, t, maxBlocks); break;
    case 6: launchRanks<T, 6>(kind, p, t, maxBlocks); break;
    case 7: launchRanks<T, 7>(kind, p, t, maxBlocks); break;
    case 8: launchRanks<T, 8>(kind, p, t, maxBlocks); break;
    default: fail("allReduce: the peer-to-peer path serves 1 to 8 ranks");
  }
}

}  // namespace

bool PeerAllReduce::supported(Bootstrap& boot) {
  auto all = boot.allgather(std::to_string(currentDevice()), "allReduce (devices)");
  if (boot.size() > kMaxRanks) return false;
  std::vector<int> devices;
  for (auto& s : all) devices.push_back(std::stoi(s));
  for (int a : devices)
    for (int b : devices) {
      if (a == b) continue;
      int can = 0;
      if (cudaDeviceCanAccessPeer(&can, a, b) != cudaSuccess || !can) {
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
      // Measured on 2 x H200 (see the kernels): pushing wins to 1 MiB, pulling from 4 MiB.
      pushMax_(envBytes("WM_AR_PUSH_MAX", int64_t{1} << 20)),
      // Measured on 2 x H200 (bfloat16, 10 packing warps, 32 KiB chunks):
      // pulled 4 MiB 22.7 µs against 23.3 streamed, 8 MiB 39.5 against 36.5.
      streamAbove_(envBytes("WM_AR_STREAM_ABOVE", int64_t{4} << 20)),
      streamPush_(static_cast<int>(envBytes("WM_AR_STREAM_PUSH", -1))),
      // 10 of 16 warps packing, 32 KiB per flag: of 4-12 warps and 24-192 KiB
      // the fastest at 16-256 MiB (bfloat16 16 MiB: 63.7 µs; 8 warps and 48
      // KiB 68.4, 4 warps 80, 192 KiB 91; bench/results/*session7*).
      stagers_(32 * static_cast<int>(std::clamp<int64_t>(envBytes("WM_AR_STAGER_WARPS", 10), 1, kArThreads / 32 - 1))),
      chunkBytes_(std::max<int64_t>(16, envBytes("WM_AR_CHUNK_BYTES", 32 << 10))),
      maxBufferBytes_(std::max(bufferBytes, envBytes("WM_AR_BUFFER_MAX", int64_t{64} << 20) / 256 * 256)) {
  WM_REQUIRE(boot.size() <= kMaxRanks, "allReduce: the peer-to-peer path serves at most 8 ranks");
  WM_REQUIRE(bufferBytes > 0 && bufferBytes % 256 == 0, "allReduce: the buffer size must be a positive multiple of 256");
  timeoutNs_ = static_cast<int64_t>(boot.timeoutMs()) * 1000000;
  int sms = 0;
  WM_CUDA(cudaDeviceGetAttribute(&sms, cudaDevAttrMultiProcessorCount, currentDevice()));
  maxBlocks_ = kMaxBlocks;
  for (auto& s : boot.allgather(std::to_string(sms), "allReduce (SM counts)")) maxBlocks_ = std::min(maxBlocks_, std::max(1, std::stoi(s)));
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

PeerAllReduce::~PeerAllReduce() {
  cudaStreamSynchronize(stream());
  mem_.reset();
  if (errHost_) cudaFreeHost(errHost_);
}

void PeerAllReduce::checkError() {
  if (!broken_.empty()) fail(broken_);
  int e = *reinterpret_cast<volatile int*>(errHost_);
  if (e != 0) {
    broken_ = "allReduce: rank " + std::to_string(e - 1) + " did not reach the all-reduce within " +
              std::to_string(boot_.timeoutMs()) + " ms (it exited, or called something else); the peer-to-peer all-reduce of this communicator is unusable";
    fail(broken_);
  }
}

bool PeerAllReduce::run(const std::vector<uint64_t>& in, const std::vector<uint64_t>& out,
                        const std::vector<int64_t>& counts, WireType wire, float scale, AllReduceAlgo algo,
                        const std::vector<uint64_t>& params, float lr) {
  checkError();
  WM_REQUIRE(in.size() == out.size() && in.size() == counts.size(), "allReduce: one input, output and count per tensor");
  WM_REQUIRE(params.empty() || params.size() == in.size(), "allReduce: one parameter per tensor for the fused SGD step");
  const int elemBytes = wire == WireType::F32 ? 4 : 2;
  const int V = 16 / elemBytes;
  Params p{};
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
    Tensors t{};
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
    const bool twoShot = algo == AllReduceAlgo::TwoShot ||
                         (algo == AllReduceAlgo::Auto && total * 16 > oneShotMax_ && p.ranks > 1);
    usedTwoShot |= twoShot;
    // Measured on 2 x H200: the streamed kernel pushes float32 (16 / 32 / 64
    // MiB: 59.3 / 105.8 / 268.1 µs against 62.5 / 112.2 / 277.2 pulled) and
    // pulls 16-bit wires (68.7 / 120.0 / 221.4 against 82.0 / 135.0 / 236.0).
    const bool streamPush = streamPush_ == 1 || (streamPush_ < 0 && wire == WireType::F32);
    const Kernel kind = twoShot                     ? Kernel::TwoShot
                        : total * 16 <= pushMax_     ? Kernel::OneShotPush
                        : total * 16 <= streamAbove_ ? Kernel::OneShotPull
                        : streamPush                 ? Kernel::StreamPush
                                                     : Kernel::Stream;
    // Pushed rounds: R slots fill a parity's two buffers.
    const int64_t roundVecs = kind == Kernel::OneShotPush || kind == Kernel::StreamPush ? p.slotBytes / 16 : bufVecs;
    p.stagers = stagers_;
    // A block's chunks must fit its progress flag's span.
    p.chunkVecs = std::max<int64_t>(chunkBytes_ / 16, (roundVecs / std::max(1, maxBlocks_) + 1) / (kChunkSpan - 1) + 1);
    for (int64_t begin = 0; begin < total; begin += roundVecs) {
      p.vecBegin = begin;
      p.nvec = std::min(roundVecs, total - begin);
      p.epoch = ++epoch_;
      p.inOff = kSignalBytes + parity_ * 2 * bufferBytes_;
      p.resOff = p.inOff + bufferBytes_;
      parity_ ^= 1;
      switch (wire) {
        case WireType::F32: launch<float>(kind, p, t, maxBlocks_); break;
        case WireType::F16: launch<Half16>(kind, p, t, maxBlocks_); break;
        case WireType::BF16: launch<BFloat16>(kind, p, t, maxBlocks_); break;
      }
    }
  }
  return usedTwoShot;
}

}  // namespace wm
