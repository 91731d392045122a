// Elementwise binary ops with broadcasting, and Select. Dims are collapsed on
// the host first so the common cases (same shape, scalar operand, bias row)
// run with rank 1 or 2 and little index arithmetic.
#include <cmath>
#include <type_traits>

#include "kernels/binary_store.cuh"
#include "kernels/strided_index.cuh"
#include "runtime/launch.cuh"
#include "runtime/vec4.cuh"
#include "wm/op_registry.h"
#include "kernels/elementwise.h"
#include "kernels/shape_collapse.h"

namespace wm {
namespace {

using scalar::binaryF;
using scalar::binaryI;

template <typename T>
struct Compute;
template <>
struct Compute<float> {
  static __device__ __forceinline__ float apply(int op, float a, float b) { return binaryF(op, a, b); }
};
template <>
struct Compute<int> {
  static __device__ __forceinline__ int apply(int op, int a, int b) { return binaryI(op, a, b); }
};
template <>
struct Compute<uint8_t> {
  static __device__ __forceinline__ int apply(int op, uint8_t a, uint8_t b) { return binaryI(op, a, b); }
};

template <typename Ti, typename To>
__global__ void binaryContiguous(int op, const Ti* a, const Ti* b, To* y, int64_t n) {
  WM_GRID_STRIDE(i, n) { y[i] = storeAs<To>(Compute<Ti>::apply(op, a[i], b[i])); }
}

template <typename Ti, typename To, typename I>
__global__ void binaryStrided(int op, const Ti* a, const Ti* b, To* y, int64_t n, Dims shape, Dims as, Dims bs) {
  WM_GRID_STRIDE(i, n) {
    I j = static_cast<I>(i);
    y[i] = storeAs<To>(Compute<Ti>::apply(op, a[stridedOffset(j, shape, as)], b[stridedOffset(j, shape, bs)]));
  }
}

// Float ops four elements at a time, for the shapes that dominate training:
// flat, where each operand is either the whole tensor (stride 1) or one
// value (stride 0), and rows, where each operand's row r starts at r * outer
// and is either a whole row or one value (a bias row, a column of scales).
template <bool A1, bool B1, int Op>
__global__ void binaryFlat4(int op, const float* a, const float* b, float* y, int64_t n) {
  const auto f = [op](float u, float v) { return floatOp<Op>(op, u, v); };
  forEach4(
      n, [&](int64_t i) { store4(y + 4 * i, zip4(A1 ? load4(a + 4 * i) : splat4(*a), B1 ? load4(b + 4 * i) : splat4(*b), f)); },
      [&](int64_t i) { y[i] = f(a[A1 ? i : 0], b[B1 ? i : 0]); });
}

template <bool A1, bool B1, int Op>
__global__ void binaryRows4(int op, const float* a, const float* b, float* y, int64_t rows, int64_t cols4, int64_t aOuter, int64_t bOuter) {
  const auto f = [op](float u, float v) { return floatOp<Op>(op, u, v); };
  forEachRow4<uint32_t>(rows, cols4, [&](uint32_t r, uint32_t c4, int64_t k) {
    const float* ar = a + r * aOuter;
    const float* br = b + r * bOuter;
    store4(y + 4 * k, zip4(A1 ? load4(ar + 4 * c4) : splat4(*ar), B1 ? load4(br + 4 * c4) : splat4(*br), f));
  });
}

template <bool A1, bool B1>
struct Flat4 {
  static void launch(int op, uint64_t a, uint64_t b, uint64_t y, int64_t n) {
    withFloatOp(op, [&](auto fixed) {
      binaryFlat4<A1, B1, decltype(fixed)::value>
          <<<gridFor4((n + 3) / 4), kThreads, 0, stream()>>>(op, as<float>(a), as<float>(b), as<float>(y), n);
    });
  }
};
template <bool A1, bool B1>
struct Rows4 {
  static void launch(int op, uint64_t a, uint64_t b, uint64_t y, int64_t rows, int64_t cols, int64_t aOuter, int64_t bOuter) {
    withFloatOp(op, [&](auto fixed) {
      binaryRows4<A1, B1, decltype(fixed)::value><<<gridFor4(rows * (cols / 4)), kThreads, 0, stream()>>>(
          op, as<float>(a), as<float>(b), as<float>(y), rows, cols / 4, aOuter, bOuter);
    });
  }
};

// K<a1, b1>::launch(args...) for operands of stride 1 (a1) or 0 along the vectorised axis.
template <template <bool, bool> class K, typename... Args>
void withUnitStrides(bool a1, bool b1, Args... args) {
  if (a1 && b1)
    K<true, true>::launch(args...);
  else if (a1)
    K<true, false>::launch(args...);
  else if (b1)
    K<false, true>::launch(args...);
  else
    K<false, false>::launch(args...);
}

// Whether the float32 -> float32 op ran four elements at a time (else the general kernels take it).
bool launchFloat4(int op, uint64_t a, uint64_t b, uint64_t y, const std::vector<int64_t>& shape, const std::vector<int64_t>& as_,
                  const std::vector<int64_t>& bs) {
  const auto unit = [](int64_t s) { return s == 0 || s == 1; };
  if (!aligned16({a, b, y})) return false;
  if (shape.size() == 1 && unit(as_[0]) && unit(bs[0])) {
    withUnitStrides<Flat4>(as_[0] == 1, bs[0] == 1, op, a, b, y, shape[0]);
    return true;
  }
  // Rows start 16-byte aligned when each whole-row operand's row stride is a multiple of 4.
  if (shape.size() == 2 && shape[1] % 4 == 0 && narrowIndex(shape[0] * shape[1] / 4) && unit(as_[1]) && unit(bs[1]) &&
      (as_[1] == 0 || as_[0] % 4 == 0) && (bs[1] == 0 || bs[0] % 4 == 0)) {
    withUnitStrides<Rows4>(as_[1] == 1, bs[1] == 1, op, a, b, y, shape[0], shape[1], as_[0], bs[0]);
    return true;
  }
  return false;
}

template <typename Ti, typename To>
void launchBinary(int op, uint64_t a, uint64_t b, uint64_t y, int64_t n, const std::vector<int64_t>& shape, const std::vector<int64_t>& as_,
                  const std::vector<int64_t>& bs) {
  auto s = stream();
  if (std::is_same_v<Ti, float> && std::is_same_v<To, float> && launchFloat4(op, a, b, y, shape, as_, bs)) return;
  if (shape.size() == 1 && as_[0] == 1 && bs[0] == 1) {
    binaryContiguous<Ti, To><<<gridFor(n), kThreads, 0, s>>>(op, as<Ti>(a), as<Ti>(b), as<To>(y), n);
  } else {
    auto kernel = narrowIndex(n) ? binaryStrided<Ti, To, uint32_t> : binaryStrided<Ti, To, int64_t>;
    kernel<<<gridFor(n), kThreads, 0, s>>>(op, as<Ti>(a), as<Ti>(b), as<To>(y), n, toDims(shape), toDims(as_), toDims(bs));
  }
}

template <typename Ti>
void dispatchOut(int op, DType out, uint64_t a, uint64_t b, uint64_t y, int64_t n, const std::vector<int64_t>& shape,
                 const std::vector<int64_t>& as_, const std::vector<int64_t>& bs) {
  switch (out) {
    case DType::F32:
      launchBinary<Ti, float>(op, a, b, y, n, shape, as_, bs);
      break;
    case DType::I32:
      launchBinary<Ti, int>(op, a, b, y, n, shape, as_, bs);
      break;
    case DType::Bool:
      launchBinary<Ti, uint8_t>(op, a, b, y, n, shape, as_, bs);
      break;
  }
}

template <typename T, typename I>
__global__ void selectKernel(const uint8_t* c, const T* a, const T* b, T* y, int64_t n, Dims shape, Dims cs, Dims as, Dims bs) {
  WM_GRID_STRIDE(i, n) {
    I j = static_cast<I>(i);
    y[i] = c[stridedOffset(j, shape, cs)] ? a[stridedOffset(j, shape, as)] : b[stridedOffset(j, shape, bs)];
  }
}

}  // namespace

void binary(BinaryOp op, DType in, DType out, uint64_t a, uint64_t b, uint64_t y, const std::vector<int64_t>& outShape,
            const std::vector<int64_t>& aStrides, const std::vector<int64_t>& bStrides) {
  int64_t n = product(outShape);
  if (n == 0) return;
  std::vector<int64_t> shape = outShape, as_ = aStrides, bs = bStrides;
  collapseDims(shape, {&as_, &bs});
  int o = static_cast<int>(op);
  switch (in) {
    case DType::F32:
      dispatchOut<float>(o, out, a, b, y, n, shape, as_, bs);
      break;
    case DType::I32:
      dispatchOut<int>(o, out, a, b, y, n, shape, as_, bs);
      break;
    case DType::Bool:
      dispatchOut<uint8_t>(o, out, a, b, y, n, shape, as_, bs);
      break;
  }
  WM_CUDA_LAUNCHED();
}

void select(DType t, uint64_t cond, uint64_t a, uint64_t b, uint64_t y, const std::vector<int64_t>& outShape,
            const std::vector<int64_t>& condStrides, const std::vector<int64_t>& aStrides, const std::vector<int64_t>& bStrides) {
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

// binary(op, dtypeIn, dtypeOut, a, b, y, shape, aStrides, bStrides)
WM_OP(binary, Device, a) {
  wm::binary(static_cast<wm::BinaryOp>(a.count(0, "op")), a.dtype(1, "dtypeIn"), a.dtype(2, "dtypeOut"), a.address(3, "a"),
             a.address(4, "b"), a.address(5, "y"), a.dims(6, "shape"), a.dims(7, "aStrides"), a.dims(8, "bStrides"));
}

// binaryFlat(op, dtypeIn, dtypeOut, a, b, y, n): same-shape operands, no shape arrays to convert (the per-op fast path).
WM_OP(binaryFlat, Device, a) {
  static thread_local std::vector<int64_t> shape(1), ones(1, 1);
  shape[0] = a.count(6, "n");
  wm::binary(static_cast<wm::BinaryOp>(a.count(0, "op")), a.dtype(1, "dtypeIn"), a.dtype(2, "dtypeOut"), a.address(3, "a"),
             a.address(4, "b"), a.address(5, "y"), shape, ones, ones);
}

// select(dtype, cond, a, b, y, shape, condStrides, aStrides, bStrides)
WM_OP(select, Device, a) {
  wm::select(a.dtype(0, "dtype"), a.address(1, "cond"), a.address(2, "a"), a.address(3, "b"), a.address(4, "y"), a.dims(5, "shape"),
             a.dims(6, "condStrides"), a.dims(7, "aStrides"), a.dims(8, "bStrides"));
}
