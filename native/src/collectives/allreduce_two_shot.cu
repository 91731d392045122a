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
// Block b handles chunk b of every segment in every pass: exactly what block
// b of the segment's owner (and of every reader) handles, so a block waits
// only for block b of its peers. At most 64 registers a thread (ptxas
// sm_90a: no spills), so two blocks fit an SM and all of a two-per-SM grid
// is resident at once (WM_AR_TWO_SHOT_BLOCKS_PER_SM).
template <typename T, int R, bool Push>
__global__ void __launch_bounds__(kArThreads, 2) twoShotKernel(Params p, Tensors t) {
  using Pack = typename Wire<T>::Pack;
  constexpr int V = Wire<T>::V;
  constexpr bool Local = Push && R <= 4;  // its own part skips the buffers (see above)
  const int mine = Local ? p.rank : -1;   // the rank whose contribution comes from the inputs
  const int64_t seg = (p.nvec + R - 1) / R;
  auto segRange = [&](int s, int64_t& a, int64_t& b) { blockRange(min(p.nvec, s * seg), min(p.nvec, (s + 1) * seg), a, b); };
  const int tid = threadIdx.x, n = blockDim.x;
  for (int k = Local ? 1 : 0; k < R; ++k) {
    const int s = Push ? rankAfter(p.rank, k, R) : k;  // pushed: the writers of a buffer spread out
    int64_t a, b;
    segRange(s, a, b);
    // Pushed: vector v of segment s lands at v - s * seg of slot `rank` of rank s's input buffer.
    Pack* dst = Push ? area<T>(p, s, p.inOff) + p.rank * seg : area<T>(p, p.rank, p.inOff);
    const int64_t first = Push ? s * seg : 0;
    packRange<T>(p, t, a, b, tid, n, [&](int64_t v, const Pack& w) { dst[v - first] = w; });
  }
  bool met = barrier(p, 0);
  {
    int64_t a, b;
    segRange(p.rank, a, b);
    const int64_t lo = p.rank * seg;
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
              p, Push ? v0 + u * n - lo : v0 + u * n, [&](int q) { return Push ? p.rank : q; },
              [&](int q) { return Push ? p.inOff + q * seg * int64_t{sizeof(Pack)} : p.inOff; }, raw[u], mine);
#pragma unroll
      for (int u = 0; u < U; ++u) {
        const int64_t v = v0 + u * n;
        if (v >= b) break;
        float acc[V];
        Pack own{};
        if (Local) {
          loadInput<V>(t, p.vecBegin + v, acc);
          own = pack<T>(acc);  // rounded as its peers' contributions were
        }
        sumPeers<T, R>(p, raw[u], acc, mine, own);
        if (!met)
          for (int k = 0; k < V; ++k) acc[k] = quietNaN();  // a stale sum never reads as a result
        const Pack w = pack<T>(acc);
        // Pushed: into every rank's result buffer (its own first, unless local); pulled: into its own.
#pragma unroll
        for (int k = Local ? 1 : 0; k < (Push ? R : 1); ++k) area<T>(p, rankAfter(p.rank, k, R), p.resOff)[v] = w;
        if (Local) {  // its own outputs: the wire's value, as every peer unpacks it
#pragma unroll
          for (int k = 0; k < V; ++k) acc[k] = toFloat(w.v[k]);
          storeOutput<V>(t, p.vecBegin + v, acc, p.lr);
        }
      }
    }
  }
  met = barrier(p, 1) && met;
  for (int s = 0; s < R; ++s) {
    int64_t a, b;
    segRange(s, a, b);
    if (!met) {
      poisonRange<V>(p, t, a, b, tid, n);
      continue;
    }
    if (Local && s == p.rank) continue;  // written by the reduction above
    const Pack* theirs = area<T>(p, Push ? p.rank : s, p.resOff);
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
        storeOutput<V>(t, p.vecBegin + v0 + u * n, x, p.lr);
      }
    }
  }
}

template <typename T, int R>
struct TwoShotPull {
  static void launch(int blocks, const Params& p, const Tensors& t) {
    twoShotKernel<T, R, false><<<blocks, kArThreads, 0, stream()>>>(p, t);
  }
};
template <typename T, int R>
struct TwoShotPush {
  static void launch(int blocks, const Params& p, const Tensors& t) {
    twoShotKernel<T, R, true><<<blocks, kArThreads, 0, stream()>>>(p, t);
  }
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
