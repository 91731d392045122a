// ScatterNd: duplicates add up, as in tfjs-backend-cpu.
#include "kernels/strided_index.cuh"
#include "runtime/launch.cuh"
#include "wm/op_registry.h"

namespace wm {
namespace {
template <typename T>
__global__ void scatterNdKernel(const int* idx, const T* upd, T* y, int64_t numUpdates, int depth, int64_t sliceSize, Dims dims,
                                unsigned long long* errorFlag) {
  WM_GRID_STRIDE(e, numUpdates * sliceSize) {
    int64_t u = e / sliceSize, j = e - u * sliceSize;
    int64_t row = 0;
    bool ok = true;
    // Unrolled over kMaxRank: dims read at constant indices stay in the
    // parameter bank (a run-time index copies them to local memory).
#pragma unroll
    for (int d = 0; d < kMaxRank; ++d) {
      if (d < depth) {
        int64_t k = idx[u * depth + d];
        ok = ok && k >= 0 && k < dims.v[d];
        row = row * dims.v[d] + k;
      }
    }
    if (ok) {
      atomicAdd(&y[row * sliceSize + j], upd[e]);
    } else if (errorFlag) {
      atomicMin(errorFlag, static_cast<unsigned long long>(u));
    }
  }
}
}  // namespace

void scatterNd(DType t, uint64_t indices, uint64_t updates, uint64_t y, int64_t numUpdates, int64_t indexDepth, int64_t sliceSize,
               const std::vector<int64_t>& dims, uint64_t errorFlag) {
  if (numUpdates * sliceSize == 0) return;
  WM_REQUIRE(static_cast<int64_t>(dims.size()) == indexDepth, "scatterNd: dims must have indexDepth entries");
  auto s = stream();
  unsigned g = gridFor(numUpdates * sliceSize);
  auto* flag = reinterpret_cast<unsigned long long*>(errorFlag);
  switch (t) {
    case DType::F32:
      scatterNdKernel<float><<<g, kThreads, 0, s>>>(as<int>(indices), as<float>(updates), as<float>(y), numUpdates, (int)indexDepth,
                                                    sliceSize, toDims(dims), flag);
      break;
    case DType::I32:
      scatterNdKernel<int><<<g, kThreads, 0, s>>>(as<int>(indices), as<int>(updates), as<int>(y), numUpdates, (int)indexDepth, sliceSize,
                                                  toDims(dims), flag);
      break;
    default:
      fail("scatterNd: dtype must be float32 or int32");
  }
  WM_CUDA_LAUNCHED();
}

}  // namespace wm

// scatterNd(dtype, indices, updates, y, numUpdates, indexDepth, sliceSize, dims, errorFlag)
WM_OP(scatterNd, Device, a) {
  wm::scatterNd(a.dtype(0, "dtype"), a.address(1, "indices"), a.address(2, "updates"), a.address(3, "y"), a.count(4, "numUpdates"),
                a.count(5, "indexDepth"), a.count(6, "sliceSize"), a.dims(7, "dims"), a.address(8, "errorFlag"));
}
