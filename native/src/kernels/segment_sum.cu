// UnsortedSegmentSum by atomics into a zero-filled output (tf.gather's
// gradient: every gathered row added back to where it came from).
#include "kernels/ops.h"
#include "runtime/launch.cuh"
#include "runtime/vec4.cuh"
#include "wm/op_registry.h"

namespace wm {
namespace {

// Four adds in one atomic where the architecture has it (sm_90's float4 atomicAdd), else four; chosen at
// compile time per architecture.
__device__ __forceinline__ void atomicAdd4(float4* p, float4 v) {
#if __CUDA_ARCH__ >= 900
  atomicAdd(p, v);
#else
  atomicAdd(&p->x, v.x);
  atomicAdd(&p->y, v.y);
  atomicAdd(&p->z, v.z);
  atomicAdd(&p->w, v.w);
#endif
}

// I as in gather.cu: 32-bit position arithmetic where it fits.
template <typename T, typename I>
__global__ void segmentSumKernel(const T* x, const int* seg, T* y, int64_t rows, int64_t inner, int64_t numSegments) {
  const I width = static_cast<I>(inner);
  WM_GRID_STRIDE(e, rows * inner) {
    const I r = static_cast<I>(e) / width, j = static_cast<I>(e) - r * width;
    const int64_t s = seg[r];
    if (s >= 0 && s < numSegments) atomicAdd(&y[s * inner + j], x[e]);
  }
}

// Four floats per atomic on sm_90 (its vector atomicAdd): a quarter of the atomics.
template <typename I>
__global__ void segmentSum4Kernel(const float* x, const int* seg, float* y, int64_t rows, int64_t inner4, int64_t numSegments) {
  const I width = static_cast<I>(inner4);
  WM_GRID_STRIDE(e, rows * inner4) {
    const I r = static_cast<I>(e) / width, j = static_cast<I>(e) - r * width;
    const int64_t s = seg[r];
    if (s >= 0 && s < numSegments) atomicAdd4(reinterpret_cast<float4*>(y) + s * inner4 + j, load4(x + 4 * e));
  }
}

template <typename T>
void launchScalar(uint64_t x, uint64_t segmentIds, uint64_t y, int64_t numRows, int64_t inner, int64_t numSegments) {
  const int64_t n = numRows * inner;
  auto kernel = narrowIndex(n) ? segmentSumKernel<T, uint32_t> : segmentSumKernel<T, int64_t>;
  kernel<<<gridFor(n), kThreads, 0, stream()>>>(as<T>(x), as<int>(segmentIds), as<T>(y), numRows, inner, numSegments);
}

}  // namespace

void unsortedSegmentSum(DType t, uint64_t x, uint64_t segmentIds, uint64_t y, int64_t numRows, int64_t inner, int64_t numSegments) {
  if (numRows * inner == 0) return;
  switch (t) {
    case DType::F32:
      if (inner % 4 == 0 && aligned16({x, y})) {
        const int64_t n4 = numRows * inner / 4;
        auto kernel = narrowIndex(n4) ? segmentSum4Kernel<uint32_t> : segmentSum4Kernel<int64_t>;
        kernel<<<gridFor(n4), kThreads, 0, stream()>>>(as<float>(x), as<int>(segmentIds), as<float>(y), numRows, inner / 4, numSegments);
      } else {
        launchScalar<float>(x, segmentIds, y, numRows, inner, numSegments);
      }
      break;
    case DType::I32:
      launchScalar<int>(x, segmentIds, y, numRows, inner, numSegments);
      break;
    default:
      fail("unsortedSegmentSum: dtype must be float32 or int32");
  }
  WM_CUDA_LAUNCHED();
}

}  // namespace wm

// segmentSum(dtype, x, ids, y, rows, inner, numSegments): y zero-filled by the caller.
WM_OP(segmentSum, Device, a) {
  wm::unsortedSegmentSum(a.dtype(0, "dtype"), a.address(1, "x"), a.address(2, "ids"), a.address(3, "y"), a.count(4, "rows"),
                         a.count(5, "inner"), a.count(6, "numSegments"));
}
