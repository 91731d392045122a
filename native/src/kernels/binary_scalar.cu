// A binary op between a tensor and a scalar that still lives on the host
// (tfjs makes one for every `tf.mul(x, 0.5)`, a mean's divisor, a loss
// weight): the value travels as a kernel argument, so the scalar needs no
// device allocation and no pageable upload (measured on an H100: the upload
// was 7-8 µs of a 20 µs `tf.add(x, 1)`).
#include <type_traits>

#include "kernels/binary_store.cuh"
#include "kernels/ops.h"
#include "runtime/launch.cuh"
#include "runtime/vec4.cuh"
#include "wm/op_registry.h"
#include "kernels/elementwise.h"

namespace wm {
namespace {

using scalar::binaryF;
using scalar::binaryI;

__device__ __forceinline__ float apply(int op, float a, float b) { return binaryF(op, a, b); }
__device__ __forceinline__ int apply(int op, int a, int b) { return binaryI(op, a, b); }

// C is the type ops compute in (bool as int, as binary.cu does).
template <typename Ti, typename C, typename To>
__global__ void binaryScalarKernel(int op, const Ti* x, C s, bool scalarFirst, To* y, int64_t n) {
  WM_GRID_STRIDE(i, n) {
    C v = static_cast<C>(x[i]);
    y[i] = storeAs<To>(scalarFirst ? apply(op, s, v) : apply(op, v, s));
  }
}

template <int Op>
__global__ void binaryScalarFloat4(int op, const float* x, float s, bool scalarFirst, float* y, int64_t n) {
  const auto f = [=](float v) { return scalarFirst ? floatOp<Op>(op, s, v) : floatOp<Op>(op, v, s); };
  forEach4(
      n, [&](int64_t i) { store4(y + 4 * i, map4(load4(x + 4 * i), f)); }, [&](int64_t i) { y[i] = f(x[i]); });
}

template <typename Ti, typename C>
void launch(int op, DType out, uint64_t x, C s, bool scalarFirst, uint64_t y, int64_t n) {
  auto st = stream();
  switch (out) {
    case DType::F32:
      if constexpr (std::is_same_v<Ti, float>) {
        if (aligned16({x, y})) {
          withFloatOp(op, [&](auto fixed) {
            binaryScalarFloat4<decltype(fixed)::value>
                <<<gridFor4((n + 3) / 4), kThreads, 0, st>>>(op, as<float>(x), s, scalarFirst, as<float>(y), n);
          });
          break;
        }
      }
      binaryScalarKernel<Ti, C, float><<<gridFor(n), kThreads, 0, st>>>(op, as<Ti>(x), s, scalarFirst, as<float>(y), n);
      break;
    case DType::I32:
      binaryScalarKernel<Ti, C, int><<<gridFor(n), kThreads, 0, st>>>(op, as<Ti>(x), s, scalarFirst, as<int>(y), n);
      break;
    case DType::Bool:
      binaryScalarKernel<Ti, C, uint8_t><<<gridFor(n), kThreads, 0, st>>>(op, as<Ti>(x), s, scalarFirst, as<uint8_t>(y), n);
      break;
  }
}

}  // namespace

void binaryScalar(BinaryOp op, DType in, DType out, uint64_t x, double value, bool scalarFirst, uint64_t y, int64_t n) {
  if (n == 0) return;
  int o = static_cast<int>(op);
  // The value came from a typed array of dtype `in`, so each cast is exact.
  switch (in) {
    case DType::F32:
      launch<float, float>(o, out, x, static_cast<float>(value), scalarFirst, y, n);
      break;
    case DType::I32:
      launch<int, int>(o, out, x, static_cast<int>(value), scalarFirst, y, n);
      break;
    case DType::Bool:
      launch<uint8_t, int>(o, out, x, value != 0 ? 1 : 0, scalarFirst, y, n);
      break;
  }
  WM_CUDA_LAUNCHED();
}

}  // namespace wm

// binaryScalar(op, dtypeIn, dtypeOut, x, value, scalarFirst, y, n)
WM_OP(binaryScalar, Device, a) {
  wm::binaryScalar(static_cast<wm::BinaryOp>(a.count(0, "op")), a.dtype(1, "dtypeIn"), a.dtype(2, "dtypeOut"), a.address(3, "x"),
                   a.number(4, "value"), a.flag(5, "scalarFirst"), a.address(6, "y"), a.count(7, "n"));
}
