#include "collectives/allreduce_device.cuh"

namespace wm {
namespace ar {
namespace {

// Two-shot (chosen from 512 KiB when more than two ranks): every rank packs its inputs,
// meets, reduces its own segment of every rank's buffer into its result
// buffer, meets again, and reads every rank's reduced segment: each byte
// crosses NVLink twice instead of n - 1 times.
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
  bool met = barrier(p, 0);
  {
    int64_t a, b;
    blockRange(min(p.nvec, p.rank * seg), min(p.nvec, (p.rank + 1) * seg), a, b);
    auto* result = area<T>(p, p.rank, p.resOff);
    for (int64_t v = a + threadIdx.x; v < b; v += blockDim.x) {
      float acc[V];
      if (met)
        reduceVec<T, R>(
            p, v, [](int q) { return q; }, [&](int) { return p.inOff; }, acc);
      else
        for (int k = 0; k < V; ++k) acc[k] = quietNaN();  // a stale sum never reads as a result
      result[v] = pack<T>(acc);
    }
  }
  met = barrier(p, 1) && met;
  for (int s = 0; s < p.ranks; ++s) {
    int64_t a, b;
    blockRange(min(p.nvec, s * seg), min(p.nvec, (s + 1) * seg), a, b);
    const auto* theirs = area<T>(p, s, p.resOff);
    if (!met) {
      poisonRange<V>(p, t, a, b, threadIdx.x, blockDim.x);
      continue;
    }
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

template <typename T, int R>
struct TwoShot {
  static void launch(int blocks, const Params& p, const Tensors& t) { twoShotKernel<T, R><<<blocks, kArThreads, 0, stream()>>>(p, t); }
};

}  // namespace

void launchTwoShot(WireType wire, int blocks, const Params& p, const Tensors& t) { dispatch<TwoShot>(wire, blocks, p, t); }

}  // namespace ar
}  // namespace wm
