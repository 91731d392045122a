#include "collectives/allreduce_device.cuh"

namespace wm {
namespace ar {
namespace {

// One-shot: pack (PackedStore), meet, sum every rank's contribution.
// Pushed (small messages): NVLink writes are posted, nothing waits for a
// reply, and the sums after the barrier read local memory only. Pulling puts
// a remote read's round trip after the barrier: 2 x H200, 1 KiB to 1 MiB,
// 9.5-13.4 µs per call pulled against 6.4-8.6 pushed (float32).
// Pulled (larger messages), measured against pushing on 2 x H200 (bfloat16
// wire): 4 MiB 23.1 against 32.8 µs, 16 MiB 77.6 against 82.3, 64 MiB 305.9
// against 325.9; pushing in 8 chunks per block, each with its own flag so a
// chunk's sums overlap the next chunk's writes, was slower still (99.3 and
// 390.0). Pulling handles one vector per thread at a time: batching four (as
// pushing does) made bfloat16 2-8 MiB slower on 2 x H200 (19.3 / 31.2 / 46.2
// µs against 15.6 / 23.1 / 40.0).
template <typename T, int R, bool Push>
__global__ void __launch_bounds__(kArThreads) oneShotKernel(Params p, Tensors t) {
  constexpr int U = Push ? 4 : 1;
  int64_t a, b;
  blockRange(0, p.nvec, a, b);
  packRange<T, U>(p, t, a, b, threadIdx.x, blockDim.x, PackedStore<T, R, Push>(p));
  if (barrier(p, 0))
    reduceOneShot<T, R, Push, U>(p, t, a, b, threadIdx.x, blockDim.x);
  else
    poisonRange<Wire<T>::V>(p, t, a, b, threadIdx.x, blockDim.x);
}

template <typename T, int R>
struct OneShotPush {
  static void launch(int blocks, const Params& p, const Tensors& t) {
    oneShotKernel<T, R, true><<<blocks, kArThreads, 0, stream()>>>(p, t);
  }
};
template <typename T, int R>
struct OneShotPull {
  static void launch(int blocks, const Params& p, const Tensors& t) {
    oneShotKernel<T, R, false><<<blocks, kArThreads, 0, stream()>>>(p, t);
  }
};

}  // namespace

void launchOneShot(bool push, WireType wire, int blocks, const Params& p, const Tensors& t) {
  if (push)
    dispatch<OneShotPush>(wire, blocks, p, t);
  else
    dispatch<OneShotPull>(wire, blocks, p, t);
}

}  // namespace ar
}  // namespace wm
