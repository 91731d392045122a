// Device side of the peer-to-peer all-reduce (peer_allreduce.cu drives it):
// the kernel parameters, the signal flags and bounded waits, packing inputs
// into the wire type and reducing the ranks' buffers. One kernel per
// allreduce_*.cu file; each exposes a launch function declared at the end.
#pragma once
#include <cstdint>

#include "runtime/check.h"
#include "wm/embedding_math.h"
#include "wm/peer_allreduce.h"
#include "wm/runtime.h"

namespace wm {
namespace ar {

constexpr int kMaxBlocks = 256;      // flag slots per phase (3 phases x 256 blocks x 8 ranks x 8 bytes fit kSignalBytes)
constexpr int kMaxGridBlocks = 128;  // blocks of the one-block-per-SM kernels
constexpr int kArThreads = 512;
constexpr int64_t kSignalBytes = 64 << 10;
static_assert(3 * kMaxBlocks * PeerAllReduce::kMaxRanks * 8 <= kSignalBytes, "signal flags must fit their region");
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
  uint8_t* base;  // rank q's slice at base + q * slice
  int64_t slice;
  int64_t inOff, resOff;  // this round's buffers within a slice
  int64_t slotBytes;      // one-shot: rank q's data lands at inOff + q * slotBytes of every slice
  int rank, ranks;
  uint64_t epoch;          // 64-bit: a flag some block has not touched for billions of rounds still reads as behind
  int64_t vecBegin, nvec;  // this round's vectors
  int64_t stageVecs;       // two-shot: vectors per stage (a multiple of the ranks; epochs epoch, epoch + 1, ...)
  float scale;
  float lr;
  int64_t chunkVecs;  // streamed one-shot: vectors per flag
  int stagers;        // streamed one-shot: threads that pack (the rest reduce)
  unsigned long long timeoutNs;
  int* err;  // host-mapped: 1 + the rank that never arrived
};

// The round's stages (two-shot; one for every other kernel): the epochs it takes, the kernel it runs.
__host__ __device__ __forceinline__ int64_t stageCount(const Params& p) { return (p.nvec + p.stageVecs - 1) / p.stageVecs; }

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

// Spins until *f reaches target (flags only grow); false if it never did. Bounded:
// after the timeout, or once another wait has given up, rank q is recorded as
// missing and the wait ends.
__device__ inline bool waitFlag(const Params& p, const uint64_t* f, uint64_t target, int q) {
  unsigned long long start = 0;
  for (uint32_t spin = 0; loadAcquire(f) < target; ++spin) {
    if ((spin & 1023) != 1023) continue;
    unsigned long long now = globalNs();
    if (start == 0) start = now;
    volatile int* err = p.err;
    if (*err != 0 || now - start > p.timeoutNs) {
      atomicCAS_system(p.err, 0, q + 1);
      return false;
    }
  }
  return true;
}

// Block b of every rank meets here: its writes before (of every thread of the
// block, remote writes included: the release at system scope after the
// block's barrier covers them) are visible to block b of every peer after.
// False when a peer's block never came: what this block would read of it is stale.
// The two-shot's stages meet at epochs p.epoch, p.epoch + 1, ...
__device__ inline bool barrier(const Params& p, int phase, uint64_t epoch) {
  __syncthreads();
  const int q = threadIdx.x;
  bool met = true;
  if (q < p.ranks) {
    storeRelease(flag(p, q, phase, blockIdx.x, p.rank), epoch);
    met = waitFlag(p, flag(p, p.rank, phase, blockIdx.x, q), epoch, q);
  }
  return __syncthreads_and(met) != 0;
}
__device__ inline bool barrier(const Params& p, int phase) { return barrier(p, phase, p.epoch); }

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
    if (t.firstVec[mid] <= v)
      lo = mid;
    else
      hi = mid - 1;
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

// Writes vector v (flat) of the outputs, or param - lr * x where the fused SGD
// step has a parameter. The 16-byte stores are explicit (__stwb): written as
// float4 assignments, nvcc split them into 4-byte stores for 16-bit wires
// (V = 8), four times the store instructions (1 x H200, one rank, bfloat16
// 4 MiB: 19.9 µs per call against float32's 6.3 for half the elements).
template <int V>
__device__ __forceinline__ void storeOutput(const Tensors& t, int64_t v, float (&x)[V], float lr) {
  int i = tensorOf(t, v);
  int64_t e0 = (v - t.firstVec[i]) * V;
  float* dst = t.out[i] + e0;
  const float* param = t.param[i] ? t.param[i] + e0 : nullptr;
  int64_t valid = t.count[i] - e0;
  if (valid >= V && ((reinterpret_cast<uintptr_t>(dst) | reinterpret_cast<uintptr_t>(param)) & 15) == 0) {
#pragma unroll
    for (int k = 0; k < V; k += 4) {
      float4 o = make_float4(x[k], x[k + 1], x[k + 2], x[k + 3]);
      if (param) {
        const float4 w = __ldg(reinterpret_cast<const float4*>(param + k));
        o = make_float4(w.x - lr * o.x, w.y - lr * o.y, w.z - lr * o.z, w.w - lr * o.w);
      }
      __stwb(reinterpret_cast<float4*>(dst + k), o);
    }
  } else {
#pragma unroll
    for (int k = 0; k < V; ++k)
      if (k < valid) dst[k] = param ? param[k] - lr * x[k] : x[k];
  }
}

// Outputs of vectors lo + tid, lo + tid + n, ... (below hi) set to NaN: a block whose peer never came
// writes no sum of stale data that would read as a result (the call's error is raised at the next one).
__device__ __forceinline__ float quietNaN() { return __int_as_float(0x7fc00000); }

template <int V>
__device__ inline void poisonRange(const Params& p, const Tensors& t, int64_t lo, int64_t hi, int tid, int n) {
  float x[V];
#pragma unroll
  for (int k = 0; k < V; ++k) x[k] = quietNaN();
  for (int64_t v = lo + tid; v < hi; v += n) storeOutput<V>(t, p.vecBegin + v, x, p.lr);
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
// A rank given as `skip` is left out (its contribution comes from elsewhere).
template <typename T, int R, typename Owner, typename Offset>
__device__ __forceinline__ void loadPeers(const Params& p, int64_t v, Owner owner, Offset offset, uint4 (&raw)[R], int skip = -1) {
#pragma unroll
  for (int q = 0; q < R; ++q)
    if (q != skip) raw[q] = __ldcg(reinterpret_cast<const uint4*>(area<T>(p, owner(q), offset(q)) + v));
}

// Rank `mine` (if any) contributes `own` in place of raw[mine], chosen by a select per rank: an
// indexed store into raw would put the array in local memory.
template <typename T, int R>
__device__ __forceinline__ void sumPeers(const Params& p, const uint4 (&raw)[R], float (&acc)[Wire<T>::V], int mine = -1,
                                         const typename Wire<T>::Pack& own = {}) {
  constexpr int V = Wire<T>::V;
#pragma unroll
  for (int k = 0; k < V; ++k) acc[k] = 0.f;
#pragma unroll
  for (int q = 0; q < R; ++q) {
    const auto& w = *reinterpret_cast<const typename Wire<T>::Pack*>(&raw[q]);
#pragma unroll
    for (int k = 0; k < V; ++k) acc[k] += toFloat(q == mine ? own.v[k] : w.v[k]);
  }
#pragma unroll
  for (int k = 0; k < V; ++k) acc[k] *= p.scale;
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

// The k-th rank after `rank` (itself first), wrapping: R writers of one buffer start at different places.
__device__ __forceinline__ int rankAfter(int rank, int k, int ranks) { return rank + k < ranks ? rank + k : rank + k - ranks; }

// The one-shot layouts, as packRange's store: pushed, each rank writes its
// packed vectors into its slot (inOff + rank * slotBytes) of every rank's
// buffer and, after meeting, reads the R slots of its own; pulled, each
// writes its own buffer (inOff) and reads every rank's.
template <typename T, int R, bool Push>
class PackedStore {
 public:
  __device__ explicit PackedStore(const Params& p) : p_(p), slot_(p.inOff + p.rank * p.slotBytes), mine_(area<T>(p, p.rank, p.inOff)) {}
  __device__ __forceinline__ void operator()(int64_t v, const typename Wire<T>::Pack& w) const {
    if (Push) {
#pragma unroll
      for (int k = 0; k < R; ++k) area<T>(p_, rankAfter(p_.rank, k, R), slot_)[v] = w;
    } else {
      mine_[v] = w;
    }
  }

 private:
  const Params& p_;
  int64_t slot_;
  typename Wire<T>::Pack* mine_;
};

// reduceRange over the ranks' contributions as PackedStore placed them.
template <typename T, int R, bool Push, int Unroll>
__device__ __forceinline__ void reduceOneShot(const Params& p, const Tensors& t, int64_t lo, int64_t hi, int tid, int n) {
  reduceRange<T, R, Unroll>(
      p, t, lo, hi, tid, n, [&](int q) { return Push ? p.rank : q; }, [&](int q) { return Push ? p.inOff + q * p.slotBytes : p.inOff; });
}

__device__ __forceinline__ void namedBarrier(int id, int threads) { asm volatile("bar.sync %0, %1;" ::"r"(id), "r"(threads) : "memory"); }

// Streamed one-shot progress flag: epoch * kChunkSpan + chunks packed.
constexpr uint64_t kChunkSpan = 4096;

// Calls K<T, R>::launch(blocks, p, t) for the wire's element type T and
// R = p.ranks (a template argument: the R loads of a vector go out together).
template <template <typename, int> class K, typename T>
void dispatchRanks(int blocks, const Params& p, const Tensors& t) {
  switch (p.ranks) {
    case 1:
      K<T, 1>::launch(blocks, p, t);
      break;
    case 2:
      K<T, 2>::launch(blocks, p, t);
      break;
    case 3:
      K<T, 3>::launch(blocks, p, t);
      break;
    case 4:
      K<T, 4>::launch(blocks, p, t);
      break;
    case 5:
      K<T, 5>::launch(blocks, p, t);
      break;
    case 6:
      K<T, 6>::launch(blocks, p, t);
      break;
    case 7:
      K<T, 7>::launch(blocks, p, t);
      break;
    case 8:
      K<T, 8>::launch(blocks, p, t);
      break;
    default:
      fail("allReduce: the peer-to-peer path serves 1 to 8 ranks");
  }
  WM_CUDA_LAUNCHED();
}

template <template <typename, int> class K>
void dispatch(WireType wire, int blocks, const Params& p, const Tensors& t) {
  switch (wire) {
    case WireType::F32:
      dispatchRanks<K, float>(blocks, p, t);
      break;
    case WireType::F16:
      dispatchRanks<K, Half16>(blocks, p, t);
      break;
    case WireType::BF16:
      dispatchRanks<K, BFloat16>(blocks, p, t);
      break;
  }
}

// blocks: every rank must launch the same grid (block b meets block b).
void launchOneShot(bool push, WireType wire, int blocks, const Params& p, const Tensors& t);
void launchOneShotStream(bool push, WireType wire, int blocks, const Params& p, const Tensors& t);
void launchTwoShot(bool push, WireType wire, int blocks, const Params& p, const Tensors& t);

}  // namespace ar
}  // namespace wm
