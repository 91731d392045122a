#include "collectives/allreduce_device.cuh"

namespace wm {
namespace ar {
namespace {

// Streamed one-shot (large messages): the block's warps split in two groups
// that run at once. Packers pack the block's share chunk by chunk (PackedStore)
// and after each chunk raise this block's progress flag on every rank; reducers
// follow, reducing chunk c once every rank's block has packed it. Local
// packing then overlaps NVLink traffic instead of preceding it.

template <typename T, int R, bool Push>
__global__ void __launch_bounds__(kArThreads) oneShotStreamKernel(Params p, Tensors t) {
  int64_t a, b;
  blockRange(0, p.nvec, a, b);
  const int chunks = static_cast<int>((b - a + p.chunkVecs - 1) / p.chunkVecs);
  const uint64_t base = p.epoch * kChunkSpan;
  if (static_cast<int>(threadIdx.x) < p.stagers) {
    const PackedStore<T, R, Push> store(p);
    for (int c = 0; c < chunks; ++c) {
      const int64_t lo = a + c * p.chunkVecs;
      packRange<T>(p, t, lo, min(b, lo + p.chunkVecs), threadIdx.x, p.stagers, store);
      namedBarrier(1, p.stagers);
      if (static_cast<int>(threadIdx.x) < R) storeRelease(flag(p, threadIdx.x, 2, blockIdx.x, p.rank), base + c + 1);
    }
    return;
  }
  const int tid = threadIdx.x - p.stagers, n = blockDim.x - p.stagers;
  // Set once a peer's chunk never came: this block's later chunks are written as NaN, not stale sums.
  __shared__ int missed;
  if (tid == 0) missed = 0;
  namedBarrier(2, n);
  for (int c = 0; c < chunks; ++c) {
    if (tid < R && !waitFlag(p, flag(p, p.rank, 2, blockIdx.x, tid), base + c + 1, tid)) missed = 1;
    namedBarrier(2, n);
    const int64_t lo = a + c * p.chunkVecs;
    if (missed)
      poisonRange<Wire<T>::V>(p, t, lo, min(b, lo + p.chunkVecs), tid, n);
    else
      reduceOneShot<T, R, Push, 4>(p, t, lo, min(b, lo + p.chunkVecs), tid, n);
  }
}

template <typename T, int R>
struct StreamPull {
  static void launch(int blocks, const Params& p, const Tensors& t) {
    oneShotStreamKernel<T, R, false><<<blocks, kArThreads, 0, stream()>>>(p, t);
  }
};
template <typename T, int R>
struct StreamPush {
  static void launch(int blocks, const Params& p, const Tensors& t) {
    oneShotStreamKernel<T, R, true><<<blocks, kArThreads, 0, stream()>>>(p, t);
  }
};

}  // namespace

void launchOneShotStream(bool push, WireType wire, int blocks, const Params& p, const Tensors& t) {
  if (push)
    dispatch<StreamPush>(wire, blocks, p, t);
  else
    dispatch<StreamPull>(wire, blocks, p, t);
}

}  // namespace ar
}  // namespace wm
