#include "allreduce_device.cuh"

namespace wm {
namespace ar {
namespace {

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

template <typename T, int R>
struct OneShotPull {
  static void launch(int blocks, const Params& p, const Tensors& t) { oneShotPullKernel<T, R><<<blocks, kArThreads, 0, stream()>>>(p, t); }
};

}  // namespace

void launchOneShotPull(WireType wire, int blocks, const Params& p, const Tensors& t) { dispatch<OneShotPull>(wire, blocks, p, t); }

}  // namespace ar
}  // namespace wm
