#include "collectives/allreduce_device.cuh"

namespace wm {
namespace ar {
namespace {

// Two-shot (chosen from 512 KiB when more than two ranks): a reduce-scatter
// then an all-gather through a second barrier; each byte crosses NVLink twice
// instead of n - 1 times. Segment s of the message (an n-th) belongs to rank s.
//   Pulled: every rank packs its inputs into its own buffer, meets, reads
//   its segment of every rank's buffer and reduces it into its result buffer,
//   meets again, and reads every rank's reduced segment.
//   Pushed: every rank packs segment s of its inputs straight into slot
//   `rank` of rank s's input buffer, meets, sums the slots of its own
//   segment (local reads) and writes the sum into every rank's result buffer,
//   meets again, and unpacks the peers' segments of its result buffer (local
//   reads). NVLink carries posted writes only.
//   On up to 4 ranks its own part never goes through the buffers: its
//   contribution to its segment is read from the inputs and rounded to the
//   wire type in registers (the bits its slot would have held), and the
//   segment's sum goes straight to its outputs. On 4 ranks that leaves out a
//   local write and read of a quarter of the message twice (4 x H100,
//   alternated runs: float32 64 MiB 315-316 µs against 339-340, bfloat16
//   355-356 against 393). On 5 ranks and more the extra values would spill
//   (ptxas sm_90a), so there its own slot and result stay in the buffers.
// Stages: a round may be cut into stages (Params::stageVecs, a multiple of
// the ranks), each a two-shot of its own with its own epoch and its own part
// of the buffers. The next stage's inputs are sent before this stage's
// results are unpacked, so the unpacking (local memory only) runs while
// NVLink carries the next stage's writes; each stage adds two barriers
// (4 x H100, 64 MiB in two stages: bfloat16 320-321 µs against 353-358 in
// one, float32 303 against 316-318; at 16 MiB two stages cost 5-6 µs).
// Block b handles chunk b of every segment in every pass: exactly what block
// b of the segment's owner (and of every reader) handles, so a block waits
// only for block b of its peers. In one stage at most 64 registers a thread
// (ptxas sm_90a: no spills), so two blocks fit an SM and all of a two-per-SM
// grid is resident at once (WM_AR_TWO_SHOT_BLOCKS_PER_SM); in several, one
// block an SM with up to 128 (in 64 the stage loop spills, ptxas sm_90a).

// Stage j of the round: its vectors (from `first`, round-relative, `seg` to a segment) and its part of
// the buffers (the same offset in bytes); it meets at epoch p.epoch + j. Every pass below addresses
// vectors within its stage. `rank` and `zero` are p.rank and 0 hidden from the compiler, one pair per
// pass: addresses the passes would share are computed again in each instead of held in registers
// across the stages.
struct Stage {
  int64_t first, nvec, seg;
  int rank, zero;
};
template <int R>
__device__ __forceinline__ Stage stageOf(const Params& p, int j) {
  int64_t first = min(p.nvec, j * p.stageVecs);
  int rank = p.rank, zero = 0;
  asm volatile("" : "+l"(first), "+r"(rank), "+r"(zero));
  const int64_t nvec = min(p.nvec, first + p.stageVecs) - first;
  return {first, nvec, (nvec + R - 1) / R, rank, zero};
}

// This block's share of segment s of the stage.
__device__ __forceinline__ void segRange(const Stage& st, int s, int64_t& a, int64_t& b) {
  blockRange(min(st.nvec, s * st.seg), min(st.nvec, (s + 1) * st.seg), a, b);
}

// First pass: the inputs packed into the wire type, where their segment's reducer reads them.
template <typename T, int R, bool Push, bool Local>
__device__ __forceinline__ void sendInputs(const Params& p, const Tensors& t, int j) {
  const Stage st = stageOf<R>(p, j);
  using Pack = typename Wire<T>::Pack;
  const int64_t inOff = p.inOff + st.first * int64_t{sizeof(Pack)};
  const int tid = threadIdx.x, n = blockDim.x;
  for (int k = Local ? 1 : 0; k < R; ++k) {
    const int s = Push ? rankAfter(st.rank, k, R) : k;  // pushed: the writers of a buffer spread out
    int64_t a, b;
    segRange(st, s, a, b);
    // Pushed: vector v of segment s lands at v - s * seg of slot `rank` of rank s's input buffer.
    Pack* dst = Push ? area<T>(p, s + st.zero, inOff) + st.rank * st.seg : area<T>(p, st.rank, inOff);
    const int64_t first = st.first + (Push ? s * st.seg : 0);
    packRange<T>(p, t, st.first + a, st.first + b, tid, n, [&](int64_t v, const Pack& w) { dst[v - first] = w; });
  }
}

// Second pass: this rank's segment summed over the ranks, its sum written where its readers read it.
template <typename T, int R, bool Push, bool Local>
__device__ __forceinline__ void reduceSegment(const Params& p, const Tensors& t, int j, bool met) {
  const Stage st = stageOf<R>(p, j);
  using Pack = typename Wire<T>::Pack;
  constexpr int V = Wire<T>::V;
  const int mine = Local ? st.rank : -1;  // the rank whose contribution comes from the inputs
  const int64_t inOff = p.inOff + st.first * int64_t{sizeof(Pack)}, resOff = p.resOff + st.first * int64_t{sizeof(Pack)};
  const int64_t at = p.vecBegin + st.first;  // the stage's first vector of the tensors
  const int tid = threadIdx.x, n = blockDim.x;
  int64_t a, b;
  segRange(st, st.rank, a, b);
  const int64_t lo = st.rank * st.seg;
  // reduceRange's loop with a store of its own: giving reduceRange a store to call moved kernels of
  // the streamed one-shot from no spills to 16-28 bytes (ptxas, sm_90a), and those are measured paths.
  // R x U loads in flight within 64 registers (the local path's own values take the second U's room).
  constexpr int U = R <= 4 && !Local ? 2 : 1;
  for (int64_t v0 = a + tid; v0 < b; v0 += int64_t{n} * U) {
    uint4 raw[U][R];
#pragma unroll
    for (int u = 0; u < U; ++u)
      if (v0 + u * n < b)
        loadPeers<T, R>(
            p, Push ? v0 + u * n - lo : v0 + u * n, [&](int q) { return Push ? st.rank : q + st.zero; },
            [&](int q) { return Push ? inOff + q * st.seg * int64_t{sizeof(Pack)} : inOff; }, raw[u], mine);
#pragma unroll
    for (int u = 0; u < U; ++u) {
      const int64_t v = v0 + u * n;
      if (v >= b) break;
      float acc[V];
      Pack own{};
      if (Local) {
        loadInput<V>(t, at + v, acc);
        own = pack<T>(acc);  // rounded as its peers' contributions were
      }
      sumPeers<T, R>(p, raw[u], acc, mine, own);
      if (!met)
        for (int k = 0; k < V; ++k) acc[k] = quietNaN();  // a stale sum never reads as a result
      const Pack w = pack<T>(acc);
      // Pushed: into every rank's result buffer (its own first, unless local); pulled: into its own.
#pragma unroll
      for (int k = Local ? 1 : 0; k < (Push ? R : 1); ++k) area<T>(p, rankAfter(st.rank, k, R), resOff)[v] = w;
      if (Local) {  // its own outputs: the wire's value, as every peer unpacks it
#pragma unroll
        for (int k = 0; k < V; ++k) acc[k] = toFloat(w.v[k]);
        storeOutput<V>(t, at + v, acc, p.lr);
      }
    }
  }
}

// Third pass: every segment's sum unpacked into the outputs (pushed: from its own result buffer).
template <typename T, int R, bool Push, bool Local>
__device__ __forceinline__ void unpackResults(const Params& p, const Tensors& t, int j, bool met) {
  const Stage st = stageOf<R>(p, j);
  using Pack = typename Wire<T>::Pack;
  constexpr int V = Wire<T>::V;
  const int64_t resOff = p.resOff + st.first * int64_t{sizeof(Pack)};
  const int64_t at = p.vecBegin + st.first;
  const int tid = threadIdx.x, n = blockDim.x;
  for (int s = 0; s < R; ++s) {
    int64_t a, b;
    segRange(st, s, a, b);
    if (!met) {
      poisonRange<V>(p, t, st.first + a, st.first + b, tid, n);
      continue;
    }
    if (Local && s == st.rank) continue;  // written by the reduction
    const Pack* theirs = area<T>(p, Push ? st.rank : s + st.zero, resOff);
    constexpr int U = 4;
    for (int64_t v0 = a + tid; v0 < b; v0 += int64_t{n} * U) {
      Pack w[U];
#pragma unroll
      for (int u = 0; u < U; ++u)
        if (v0 + u * n < b) *reinterpret_cast<uint4*>(&w[u]) = __ldcg(reinterpret_cast<const uint4*>(theirs + v0 + u * n));
#pragma unroll
      for (int u = 0; u < U; ++u) {
        if (v0 + u * n >= b) break;
        float x[V];
#pragma unroll
        for (int k = 0; k < V; ++k) x[k] = toFloat(w[u].v[k]);
        storeOutput<V>(t, at + v0 + u * n, x, p.lr);
      }
    }
  }
}

template <typename T, int R, bool Push, bool Staged>
__global__ void __launch_bounds__(kArThreads, Staged ? 1 : 2) twoShotKernel(Params p, Tensors t) {
  constexpr bool Local = Push && R <= 4;  // its own part skips the buffers (see above)
  const int stages = Staged ? static_cast<int>(stageCount(p)) : 1;
  sendInputs<T, R, Push, Local>(p, t, 0);
#pragma unroll 1
  for (int j = 0; j < stages; ++j) {
    bool met = barrier(p, 0, p.epoch + j);
    reduceSegment<T, R, Push, Local>(p, t, j, met);
    met = barrier(p, 1, p.epoch + j) && met;
    if (j + 1 < stages) sendInputs<T, R, Push, Local>(p, t, j + 1);  // on the wire while this stage unpacks
    unpackResults<T, R, Push, Local>(p, t, j, met);
  }
}

template <typename T, int R, bool Push>
void launchStages(int blocks, const Params& p, const Tensors& t) {
  if (stageCount(p) > 1)
    twoShotKernel<T, R, Push, true><<<blocks, kArThreads, 0, stream()>>>(p, t);
  else
    twoShotKernel<T, R, Push, false><<<blocks, kArThreads, 0, stream()>>>(p, t);
}

template <typename T, int R>
struct TwoShotPull {
  static void launch(int blocks, const Params& p, const Tensors& t) { launchStages<T, R, false>(blocks, p, t); }
};
template <typename T, int R>
struct TwoShotPush {
  static void launch(int blocks, const Params& p, const Tensors& t) { launchStages<T, R, true>(blocks, p, t); }
};

}  // namespace

void launchTwoShot(bool push, WireType wire, int blocks, const Params& p, const Tensors& t) {
  if (push)
    dispatch<TwoShotPush>(wire, blocks, p, t);
  else
    dispatch<TwoShotPull>(wire, blocks, p, t);
}

}  // namespace ar
}  // namespace wm
