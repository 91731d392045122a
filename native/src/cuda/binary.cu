// Elementwise binary ops with broadcasting, and Select. Dims are collapsed on
// the host first so the common cases (same shape, scalar operand, bias row)
// run with rank 1 or 2 and little index arithmetic.
#include <cmath>

#include "binary_store.cuh"
#include "launch.cuh"
#include "wm/elementwise.h"
#include "wm/shape_collapse.h"

namespace wm {
namespace {

using scalar::binaryF;
using scalar::binaryI;

template <typename T> struct Compute;
template <> struct Compute<float> {
  static __device__ __forceinline__ float apply(int op, float a, float b) { return binaryF(op, a, b); }
};
template <> struct Compute<int> {
  static __device__ __forceinline__ int apply(int op, int a, int b) { return binaryI(op, a, b); }
};
template <> struct Compute<uint8_t> {
  static __device__ __forceinline__ int apply(int op, uint8_t a, uint8_t b) { return binaryI(op, a, b); }
};

template <typename Ti, typename To>
__global__ void binaryContiguous(int op, const Ti* a, const Ti* b, To* y, int64_t n) {
  WM_GRID_STRIDE(i, n) { y[i] = storeAs<To>(Compute<Ti>::apply(op, a[i], b[i])); }
}

template <typename Ti, typename To, typename I>
__global__ void binaryStrided(int op, const Ti* a, const Ti* b, To* y, int64_t n,
                              Dims shape, Dims as, Dims bs) {
  WM_GRID_STRIDE(i, n) {
    I j = static_cast<I>(i);
    y[i] = storeAs<To>(Compute<Ti>::apply(op, a[stridedOffset(j, shape, as)],
                                        b[stridedOffset(j, shape, bs)]));
  }
}


template <typename Ti, typename To>
void launchBinary(int op, uint64_t a, uint64_t b, uint64_t y, int64_t n,
                  const std::vector<int64_t>& shape, const std::vector<int64_t>& as_,
                  const std::vector<int64_t>& bs) {
  auto s = stream();
  if (shape.size() == 1 && as_[0] == 1 && bs[0] == 1) {
    binaryContiguous<Ti, To><<<gridFor(n), kThreads, 0, s>>>(op, as<Ti>(a), as<Ti>(b), as<To>(y), n);
  } else {
    auto kernel = narrowIndex(n) ? binaryStrided<Ti, To, uint32_t> : binaryStrided<Ti, To, int64_t>;
    kernel<<<gridFor(n), kThreads, 0, s>>>(op, as<Ti>(a), as<Ti>(b), as<To>(y), n, toDims(shape), toDims(as_), toDims(bs));
  }
}

template <typename Ti>
void dispatchOut(int op, DType out, uint64_t a, uint64_t b, uint64_t y, int64_t n,
                 const std::vector<int64_t>& shape, const std::vector<int64_t>& as_,
                 const std::vector<int64_t>& bs) {
  switch (out) {
    case DType::F32: launchBinary<Ti, float>(op, a, b, y, n, shape, as_, bs); break;
    case DType::I32: launchBinary<Ti, int>(op, a, b, y, n, shape, as_, bs); break;
    case DType::Bool: launchBinary<Ti, uint8_t>(op, a, b, y, n, shape, as_, bs); break;
  }
}

template <typename T, typename I>
__global__ void selectKernel(const uint8_t* c, const T* a, const T* b, T* y, int64_t n,
                             Dims shape, Dims cs, Dims as, Dims bs) {
  WM_GRID_STRIDE(i, n) {
    I j = static_cast<I>(i);
    y[i] = c[stridedOffset(j, shape, cs)] ? a[stridedOffset(j, shape, as)]
                                          : b[stridedOffset(j, shape, bs)];
  }
}

}  // namespace

void binary(BinaryOp op, DType in, DType out, uint64_t a, uint64_t b, uint64_t y,
            const std::vector<int64_t>& outShape, const std::vector<int64_t>& aStrides,
            const std::vector<int64_t>& bStrides) {
  int64_t n = product(outShape);
  if (n == 0) return;
  std::vector<int64_t> shape = outShape, as_ = aStrides, bs = bStrides;
  collapseDims(shape, {&as_, &bs});
  int o = static_cast<int>(op);
  switch (in) {
    case DType::F32: dispatchOut<float>(o, out, a, b, y, n, shape, as_, bs); break;
    case DType::I32: dispatchOut<int>(o, out, a, b, y, n, shape, as_, bs); break;
    case DType::Bool: dispatchOut<uint8_t>(o, out, a, b, y, n, shape, as_, bs); break;
  }
  WM_CUDA_LAUNCHED();
}

void select(DType t, uint64_t cond, uint64_t a, uint64_t b, uint64_t y,
            const std::vector<int64_t>& outShape, const std::vector<int64_t>& condStrides,
            const std::vector<int64_t>& aStrides, const std::vector<int64_t>& bStrides) {
  int64_t n = product(outShape);
  if (n == 0) return;
  std::vector<int64_t> shape = outShape, cs = condStrides, as_ = aStrides, bs = bStrides;
  collapseDims(shape, {&cs, &as_, &bs});
  auto s = stream();
  Dims d = toDims(shape), dc = toDims(cs), da = toDims(as_), db = toDims(bs);
  bool narrow = narrowIndex(n);
  if (dtypeSize(t) == 4) {
    auto kernel = narrow ? selectKernel<int, uint32_t> : selectKernel<int, int64_t>;
    kernel<<<gridFor(n), kThreads, 0, s>>>(as<uint8_t>(cond), as<int>(a), as<int>(b), as<int>(y), n, d, dc, da, db);
  } else {
    auto kernel = narrow ? selectKernel<uint8_t, uint32_t> : selectKernel<uint8_t, int64_t>;
    kernel<<<gridFor(n), kThreads, 0, s>>>(as<uint8_t>(cond), as<uint8_t>(a), as<uint8_t>(b), as<uint8_t>(y), n, d, dc, da, db);
  }
  WM_CUDA_LAUNCHED();
}

}  // namespace wm
