// Host unary, binary and select kernels: the scalar ops of kernels/elementwise.h
// over typed arrays, with broadcasting by strides.
#include <algorithm>
#include <string>
#include <type_traits>
#include <utility>

#include "runtime/parallel.h"
#include "runtime/vector_math.h"
#include "wm/op_registry.h"
#include "kernels/elementwise.h"
#include "kernels/host_ops.h"
#include "kernels/shape_collapse.h"
#include "wm/status.h"

namespace wm {
namespace host {
namespace {

constexpr int64_t kGrain = 1 << 15;
constexpr int kUnaryOps = static_cast<int>(UnaryOp::IsFinite) + 1;
constexpr int kBinaryOps = static_cast<int>(BinaryOp::ReluGrad) + 1;

// Calls f(std::integral_constant<int, op>) so loops see the op as a constant:
// the scalar op's switch then folds away and the loop vectorises (a switch per
// element made a ReLU over 286K floats take 1 ms on the CPU box). An op past
// the table gets -1 (f then switches at run time).
template <typename F, int... O>
void withOpConstant(int op, F&& f, std::integer_sequence<int, O...>) {
  const bool found = ((op == O ? (f(std::integral_constant<int, O>{}), true) : false) || ...);
  if (!found) f(std::integral_constant<int, -1>{});
}

template <typename To>
To fromFloat(float v) {
  return static_cast<To>(v);
}
template <>
int fromFloat<int>(float v) {
  return scalar::doubleToInt32(v);
}
template <>
uint8_t fromFloat<uint8_t>(float v) {
  return v != 0.f;
}
template <typename To>
To fromInt(int v) {
  return static_cast<To>(v);
}
template <>
uint8_t fromInt<uint8_t>(int v) {
  return v != 0;
}

template <typename Ti, typename To>
void unaryLoop(UnaryOp op, const Ti* x, To* y, int64_t n, float alpha, float beta) {
  withOpConstant(
      static_cast<int>(op),
      [&](auto constant) {
        constexpr int kOp = decltype(constant)::value;
        const int o = kOp >= 0 ? kOp : static_cast<int>(op);
        parallelFor(n, kGrain, [&](int64_t b, int64_t e) {
          for (int64_t i = b; i < e; ++i) {
            if constexpr (std::is_same<Ti, float>::value) {
              y[i] = fromFloat<To>(scalar::unaryF(o, x[i], alpha, beta));
            } else if constexpr (std::is_same<To, float>::value) {
              y[i] = o == static_cast<int>(UnaryOp::Cast) ? static_cast<float>(x[i])
                                                          : scalar::unaryF(o, static_cast<float>(x[i]), alpha, beta);
            } else {
              y[i] = fromInt<To>(scalar::unaryI(o, static_cast<int>(x[i]), alpha, beta));
            }
          }
        });
      },
      std::make_integer_sequence<int, kUnaryOps>{});
}

template <typename Ti>
void unaryOut(UnaryOp op, DType out, const Ti* x, void* y, int64_t n, float alpha, float beta) {
  switch (out) {
    case DType::F32:
      unaryLoop(op, x, static_cast<float*>(y), n, alpha, beta);
      break;
    case DType::I32:
      unaryLoop(op, x, static_cast<int*>(y), n, alpha, beta);
      break;
    case DType::Bool:
      unaryLoop(op, x, static_cast<uint8_t*>(y), n, alpha, beta);
      break;
  }
}

// Walks the output in row-major order; the innermost dim is a tight loop.
template <typename F>
void forEachStrided(const std::vector<int64_t>& shape, const std::vector<std::vector<int64_t>>& strides, F&& f) {
  int rank = static_cast<int>(shape.size());
  int64_t inner = shape[rank - 1];
  int64_t rows = 1;
  for (int k = 0; k < rank - 1; ++k) rows *= shape[k];
  size_t ns = strides.size();
  parallelFor(rows, std::max<int64_t>(1, kGrain / std::max<int64_t>(inner, 1)), [&](int64_t rb, int64_t re) {
    // Divide once per range, then count the index up like an odometer (short
    // rows, as in window reads, made a division per axis per row dominate).
    std::vector<int64_t> base(ns, 0), idx(rank > 1 ? rank - 1 : 1, 0);
    int64_t rest = rb;
    for (int k = rank - 2; k >= 0; --k) {
      idx[k] = rest % shape[k];
      rest /= shape[k];
      for (size_t j = 0; j < ns; ++j) base[j] += idx[k] * strides[j][k];
    }
    for (int64_t r = rb; r < re; ++r) {
      f(r * inner, base, inner);
      for (int k = rank - 2; k >= 0; --k) {
        if (++idx[k] < shape[k]) {
          for (size_t j = 0; j < ns; ++j) base[j] += strides[j][k];
          break;
        }
        for (size_t j = 0; j < ns; ++j) base[j] -= (shape[k] - 1) * strides[j][k];
        idx[k] = 0;
      }
    }
  });
}

template <typename Ti, typename To>
void binaryLoop(int op, const Ti* a, const Ti* b, To* y, const std::vector<int64_t>& shape, const std::vector<int64_t>& as,
                const std::vector<int64_t>& bs) {
  int rank = static_cast<int>(shape.size());
  int64_t sa = as[rank - 1], sb = bs[rank - 1];
  withOpConstant(
      op,
      [&](auto constant) {
        constexpr int kOp = decltype(constant)::value;
        const int o = kOp >= 0 ? kOp : op;
        forEachStrided(shape, {as, bs}, [&](int64_t out, const std::vector<int64_t>& base, int64_t inner) {
          const Ti* pa = a + base[0];
          const Ti* pb = b + base[1];
          To* py = y + out;
          const auto loop = [&](auto stepA, auto stepB) {
            for (int64_t i = 0; i < inner; ++i) {
              if constexpr (std::is_same<Ti, float>::value) {
                py[i] = fromFloat<To>(scalar::binaryF(o, pa[i * stepA], pb[i * stepB]));
              } else {
                py[i] = fromInt<To>(scalar::binaryI(o, pa[i * stepA], pb[i * stepB]));
              }
            }
          };
          // Float rows of whole operands or one value (a scalar, a bias column) with the steps as
          // constants, so the loop vectorises (CPU box, one thread, 2^18 floats in cache: x * 0.5
          // took 129-132 µs with run-time steps, 94-96 with these).
          using One = std::integral_constant<int64_t, 1>;
          using Zero = std::integral_constant<int64_t, 0>;
          if constexpr (std::is_same<Ti, float>::value && std::is_same<To, float>::value) {
            if (sa == 1 && sb == 1) return loop(One{}, One{});
            if (sa == 1 && sb == 0) return loop(One{}, Zero{});
            if (sa == 0 && sb == 1) return loop(Zero{}, One{});
          }
          loop(sa, sb);
        });
      },
      std::make_integer_sequence<int, kBinaryOps>{});
}

template <typename Ti>
void binaryOut(int op, DType out, const void* a, const void* b, void* y, const std::vector<int64_t>& shape, const std::vector<int64_t>& as,
               const std::vector<int64_t>& bs) {
  auto pa = static_cast<const Ti*>(a);
  auto pb = static_cast<const Ti*>(b);
  switch (out) {
    case DType::F32:
      binaryLoop(op, pa, pb, static_cast<float*>(y), shape, as, bs);
      break;
    case DType::I32:
      binaryLoop(op, pa, pb, static_cast<int*>(y), shape, as, bs);
      break;
    case DType::Bool:
      binaryLoop(op, pa, pb, static_cast<uint8_t*>(y), shape, as, bs);
      break;
  }
}

int64_t product(const std::vector<int64_t>& d) {
  int64_t n = 1;
  for (int64_t x : d) n *= x;
  return n;
}

}  // namespace

void unary(UnaryOp op, DType in, DType out, const void* x, void* y, int64_t n, float alpha, float beta) {
  switch (in) {
    case DType::F32:
      unaryOut(op, out, static_cast<const float*>(x), y, n, alpha, beta);
      break;
    case DType::I32:
      unaryOut(op, out, static_cast<const int*>(x), y, n, alpha, beta);
      break;
    case DType::Bool:
      unaryOut(op, out, static_cast<const uint8_t*>(x), y, n, alpha, beta);
      break;
  }
}

void binary(BinaryOp op, DType in, DType out, const void* a, const void* b, void* y, const std::vector<int64_t>& outShape,
            const std::vector<int64_t>& aStrides, const std::vector<int64_t>& bStrides) {
  if (product(outShape) == 0) return;
  std::vector<int64_t> shape = outShape, as = aStrides, bs = bStrides;
  collapseDims(shape, {&as, &bs});
  int o = static_cast<int>(op);
  switch (in) {
    case DType::F32:
      binaryOut<float>(o, out, a, b, y, shape, as, bs);
      break;
    case DType::I32:
      binaryOut<int>(o, out, a, b, y, shape, as, bs);
      break;
    case DType::Bool:
      binaryOut<uint8_t>(o, out, a, b, y, shape, as, bs);
      break;
  }
}

void select(DType t, const void* cond, const void* a, const void* b, void* y, const std::vector<int64_t>& outShape,
            const std::vector<int64_t>& condStrides, const std::vector<int64_t>& aStrides, const std::vector<int64_t>& bStrides) {
  if (product(outShape) == 0) return;
  std::vector<int64_t> shape = outShape, cs = condStrides, as = aStrides, bs = bStrides;
  collapseDims(shape, {&cs, &as, &bs});
  int rank = static_cast<int>(shape.size());
  auto run = [&](auto* pa, auto* pb, auto* py) {
    auto c = static_cast<const uint8_t*>(cond);
    int64_t sc = cs[rank - 1], sa = as[rank - 1], sb = bs[rank - 1];
    forEachStrided(shape, {cs, as, bs}, [&](int64_t out, const std::vector<int64_t>& base, int64_t inner) {
      for (int64_t i = 0; i < inner; ++i) {
        py[out + i] = c[base[0] + i * sc] ? pa[base[1] + i * sa] : pb[base[2] + i * sb];
      }
    });
  };
  if (dtypeSize(t) == 4)
    run(static_cast<const int32_t*>(a), static_cast<const int32_t*>(b), static_cast<int32_t*>(y));
  else
    run(static_cast<const uint8_t*>(a), static_cast<const uint8_t*>(b), static_cast<uint8_t*>(y));
}

}  // namespace host
}  // namespace wm

namespace {
int64_t product(const std::vector<int64_t>& shape) {
  int64_t n = 1;
  for (int64_t d : shape) n *= d;
  return n;
}
}  // namespace

WM_OP(unary, Host, a) {
  const wm::DType in = a.dtype(1, "dtypeIn"), out = a.dtype(2, "dtypeOut");
  const int64_t n = a.count(5, "n");
  wm::host::unary(static_cast<wm::UnaryOp>(a.count(0, "op")), in, out, a.tensor(3, "x", in, n), a.tensor(4, "y", out, n), n,
                  static_cast<float>(a.number(6, "alpha")), static_cast<float>(a.number(7, "beta")));
}

WM_OP(binary, Host, a) {
  const wm::DType in = a.dtype(1, "dtypeIn"), out = a.dtype(2, "dtypeOut");
  const auto shape = a.dims(6, "shape"), as = a.dims(7, "aStrides"), bs = a.dims(8, "bStrides");
  wm::host::binary(static_cast<wm::BinaryOp>(a.count(0, "op")), in, out, a.tensor(3, "a", in, wm::stridedExtent(shape, as)),
                   a.tensor(4, "b", in, wm::stridedExtent(shape, bs)), a.tensor(5, "y", out, product(shape)), shape, as, bs);
}

WM_OP(binaryFlat, Host, a) {
  const wm::DType in = a.dtype(1, "dtypeIn"), out = a.dtype(2, "dtypeOut");
  const int64_t n = a.count(6, "n");
  wm::host::binary(static_cast<wm::BinaryOp>(a.count(0, "op")), in, out, a.tensor(3, "a", in, n), a.tensor(4, "b", in, n),
                   a.tensor(5, "y", out, n), {n}, {1}, {1});
}

// The scalar becomes a one-element operand broadcast over x.
WM_OP(binaryScalar, Host, a) {
  const wm::DType in = a.dtype(1, "dtypeIn"), out = a.dtype(2, "dtypeOut");
  const int64_t n = a.count(7, "n");
  const double value = a.number(4, "value");
  union {
    float f;
    int32_t i;
    uint8_t b;
  } scalar{};
  if (in == wm::DType::F32)
    scalar.f = static_cast<float>(value);
  else if (in == wm::DType::I32)
    scalar.i = static_cast<int32_t>(value);
  else
    scalar.b = value != 0;
  const void* x = a.tensor(3, "x", in, n);
  const bool first = a.flag(5, "scalarFirst");
  wm::host::binary(static_cast<wm::BinaryOp>(a.count(0, "op")), in, out, first ? &scalar : x, first ? x : &scalar, a.tensor(6, "y", out, n),
                   {n}, {first ? 0 : 1}, {first ? 1 : 0});
}

WM_OP(select, Host, a) {
  const wm::DType dt = a.dtype(0, "dtype");
  const auto shape = a.dims(5, "shape"), cs = a.dims(6, "condStrides"), as = a.dims(7, "aStrides"), bs = a.dims(8, "bStrides");
  wm::host::select(dt, a.tensor(1, "cond", wm::DType::Bool, wm::stridedExtent(shape, cs)),
                   a.tensor(2, "a", dt, wm::stridedExtent(shape, as)), a.tensor(3, "b", dt, wm::stridedExtent(shape, bs)),
                   a.tensor(4, "y", dt, product(shape)), shape, cs, as, bs);
}

WM_OP(fill, Host, a) {
  const wm::DType dt = a.dtype(0, "dtype");
  const int64_t n = a.count(2, "n");
  const double value = a.number(3, "value");
  void* y = a.tensor(1, "y", dt, n);
  if (dt == wm::DType::F32)
    std::fill_n(static_cast<float*>(y), n, static_cast<float>(value));
  else if (dt == wm::DType::I32)
    std::fill_n(static_cast<int32_t*>(y), n, static_cast<int32_t>(value));
  else
    std::fill_n(static_cast<uint8_t*>(y), n, static_cast<uint8_t>(value != 0));
}
