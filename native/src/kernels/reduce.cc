// Host reductions over the middle axis of [outer, reduce, inner], with the
// semantics of tfjs-backend-cpu (float sums in double, NaN wins in Max/Min,
// Arg* keep the first index and follow the CPU backend's scan).
#include <algorithm>
#include <climits>
#include <cmath>
#include <cstring>
#include <limits>
#include <string>
#include <vector>

#include "runtime/huge_pages.h"
#include "runtime/parallel.h"
#include "runtime/vector_math.h"
#include "wm/op_registry.h"
#include "wm/embedding_math.h"
#include "kernels/host_ops.h"
#include "wm/status.h"

namespace wm {
namespace host {
namespace {

// Float sums over a middle axis (tf.sum(x, 0): a bias gradient) a block of
// columns at a time, each column's sum still in row order: the same doubles
// as one column at a time, without walking memory down a column.
template <typename Out>
void columnBlockSum(ReduceOp op, const float* x, Out* y, int64_t outer, int64_t rsize, int64_t inner) {
  constexpr int64_t kBlock = 64;
  const int64_t blocks = (inner + kBlock - 1) / kBlock;
  parallelFor(outer * blocks, std::max<int64_t>(1, (1 << 15) / std::max<int64_t>(rsize * kBlock, 1)), [&](int64_t b, int64_t e) {
    double acc[kBlock];
    for (int64_t ob = b; ob < e; ++ob) {
      const int64_t o = ob / blocks, i0 = (ob % blocks) * kBlock, n = std::min(kBlock, inner - i0);
      for (int64_t i = 0; i < n; ++i) acc[i] = 0;
      const float* p = x + o * rsize * inner + i0;
      for (int64_t r = 0; r < rsize; ++r, p += inner)
        for (int64_t i = 0; i < n; ++i) acc[i] += p[i];
      for (int64_t i = 0; i < n; ++i) {
        double v = op == ReduceOp::Mean ? acc[i] / static_cast<double>(rsize) : acc[i];
        y[o * inner + i0 + i] = static_cast<Out>(v);
      }
    }
  });
}

template <typename In, typename Out>
void reduceLoop(ReduceOp op, const In* x, Out* y, int64_t outer, int64_t rsize, int64_t inner) {
  constexpr bool kFloat = std::is_same<In, float>::value;
  if constexpr (kFloat) {
    if ((op == ReduceOp::Sum || op == ReduceOp::Mean) && inner >= 16) {
      columnBlockSum(op, x, y, outer, rsize, inner);
      return;
    }
  }
  parallelFor(outer * inner, 256, [&](int64_t b, int64_t e) {
    for (int64_t oi = b; oi < e; ++oi) {
      int64_t o = oi / inner, i = oi % inner;
      const In* p = x + o * rsize * inner + i;
      Out result{};
      switch (op) {
        case ReduceOp::Sum:
        case ReduceOp::Mean:
        case ReduceOp::Prod: {
          bool prod = op == ReduceOp::Prod;
          if constexpr (kFloat) {
            double acc = prod ? 1.0 : 0.0;
            for (int64_t r = 0; r < rsize; ++r) acc = prod ? acc * p[r * inner] : acc + p[r * inner];
            if (op == ReduceOp::Mean) acc /= static_cast<double>(rsize);
            result = static_cast<Out>(acc);
          } else {
            long long acc = prod ? 1 : 0;
            for (int64_t r = 0; r < rsize; ++r) acc = prod ? acc * p[r * inner] : acc + p[r * inner];
            result = static_cast<Out>(static_cast<int>(static_cast<unsigned>(static_cast<unsigned long long>(acc))));
          }
          break;
        }
        case ReduceOp::Max:
        case ReduceOp::Min: {
          bool isMax = op == ReduceOp::Max;
          In best = p[0];
          for (int64_t r = 0; r < rsize; ++r) {
            In v = p[r * inner];
            bool nan = kFloat && v != v;
            if (nan || (isMax ? v > best : v < best)) best = v;
          }
          result = static_cast<Out>(best);
          break;
        }
        case ReduceOp::All:
        case ReduceOp::Any: {
          bool all = op == ReduceOp::All;
          bool acc = all;
          for (int64_t r = 0; r < rsize; ++r) acc = all ? (acc && p[r * inner] != 0) : (acc || p[r * inner] != 0);
          result = static_cast<Out>(acc);
          break;
        }
        case ReduceOp::ArgMax:
        case ReduceOp::ArgMin: {
          bool isMax = op == ReduceOp::ArgMax;
          In best = p[0];
          int64_t at = 0;
          for (int64_t r = 1; r < rsize; ++r) {
            In v = p[r * inner];
            if (isMax ? v > best : v < best) {
              best = v;
              at = r;
            }
          }
          result = static_cast<Out>(at);
          break;
        }
      }
      y[oi] = result;
    }
  });
}

// Few long float sums (tf.sum of a whole tensor, a loss's mean): one thread
// per output would leave the others idle. Partial double sums over fixed
// chunks, added in chunk order, so the result does not depend on the thread
// count (a double per 2^14 floats: the float32 result is tfjs-backend-cpu's
// sequential double sum's but for the rarest ties).
template <typename Out>
bool chunkedFloatSum(ReduceOp op, const float* x, Out* y, int64_t outer, int64_t rsize, int64_t inner) {
  constexpr int64_t kChunk = 1 << 14;
  if ((op != ReduceOp::Sum && op != ReduceOp::Mean) || outer * inner >= 8 || rsize < 8 * kChunk) return false;
  const int64_t chunks = (rsize + kChunk - 1) / kChunk;
  std::vector<double> partial(static_cast<size_t>(chunks));
  for (int64_t oi = 0; oi < outer * inner; ++oi) {
    const int64_t o = oi / inner, i = oi % inner;
    const float* p = x + o * rsize * inner + i;
    parallelFor(chunks, 1, [&](int64_t cb, int64_t ce) {
      for (int64_t c = cb; c < ce; ++c) {
        double acc = 0;
        for (int64_t r = c * kChunk, e = std::min(rsize, r + kChunk); r < e; ++r) acc += p[r * inner];
        partial[c] = acc;
      }
    });
    double acc = 0;
    for (double v : partial) acc += v;
    if (op == ReduceOp::Mean) acc /= static_cast<double>(rsize);
    y[oi] = static_cast<Out>(acc);
  }
  return true;
}

template <typename In>
void reduceOut(ReduceOp op, DType out, const void* x, void* y, int64_t outer, int64_t rsize, int64_t inner) {
  auto px = static_cast<const In*>(x);
  if constexpr (std::is_same<In, float>::value) {
    if (out == DType::F32 && chunkedFloatSum(op, px, static_cast<float*>(y), outer, rsize, inner)) return;
  }
  switch (out) {
    case DType::F32:
      reduceLoop(op, px, static_cast<float*>(y), outer, rsize, inner);
      break;
    case DType::I32:
      reduceLoop(op, px, static_cast<int*>(y), outer, rsize, inner);
      break;
    case DType::Bool:
      reduceLoop(op, px, static_cast<uint8_t*>(y), outer, rsize, inner);
      break;
  }
}

}  // namespace

void reduce(ReduceOp op, DType in, DType out, const void* x, void* y, int64_t outer, int64_t reduceSize, int64_t inner) {
  if (outer * inner == 0) return;
  bool needsOne = op == ReduceOp::Max || op == ReduceOp::Min || op == ReduceOp::ArgMax || op == ReduceOp::ArgMin;
  WM_REQUIRE(!(needsOne && reduceSize == 0), "reduce: Max/Min/ArgMax/ArgMin of an empty axis is undefined");
  switch (in) {
    case DType::F32:
      reduceOut<float>(op, out, x, y, outer, reduceSize, inner);
      break;
    case DType::I32:
      reduceOut<int>(op, out, x, y, outer, reduceSize, inner);
      break;
    case DType::Bool:
      reduceOut<uint8_t>(op, out, x, y, outer, reduceSize, inner);
      break;
  }
}

void softmax(const float* x, float* y, int64_t outer, int64_t inner, bool log) {
  parallelFor(outer, std::max<int64_t>(1, (1 << 14) / std::max<int64_t>(inner, 1)), [&](int64_t b, int64_t e) {
    for (int64_t o = b; o < e; ++o) {
      const float* xr = x + o * inner;
      float* yr = y + o * inner;
      float m = -INFINITY;
      for (int64_t j = 0; j < inner; ++j) m = std::fmax(m, xr[j]);
      double sum = 0;
      if (log) {
        for (int64_t j = 0; j < inner; ++j) sum += std::exp(static_cast<double>(xr[j] - m));
        float l = static_cast<float>(std::log(sum));
        for (int64_t j = 0; j < inner; ++j) yr[j] = xr[j] - m - l;
      } else {
        // As tfjs-backend-cpu: float exponentials, summed in double; they go
        // into y first, one vectorised pass (vector_math.h) instead of two.
        for (int64_t j = 0; j < inner; ++j) yr[j] = std::exp(xr[j] - m);
        for (int64_t j = 0; j < inner; ++j) sum += yr[j];
        double inv = 1.0 / sum;
        for (int64_t j = 0; j < inner; ++j) yr[j] = static_cast<float>(yr[j] * inv);
      }
    }
  });
}

}  // namespace host
}  // namespace wm

// reduce(op, dtypeIn, dtypeOut, x, y, outer, inner, after = 1): the middle axis of [outer, inner, after].
WM_OP(reduce, Host, a) {
  const wm::DType in = a.dtype(1, "dtypeIn"), out = a.dtype(2, "dtypeOut");
  const int64_t outer = a.count(5, "outer"), inner = a.count(6, "inner"), after = a.present(7) ? a.count(7, "after") : 1;
  wm::host::reduce(static_cast<wm::ReduceOp>(a.count(0, "op")), in, out, a.tensor(3, "x", in, outer * inner * after),
                   a.tensor(4, "y", out, outer * after), outer, inner, after);
}

WM_OP(softmax, Host, a) {
  const int64_t outer = a.count(2, "outer"), inner = a.count(3, "inner");
  wm::host::softmax(a.floats(0, "x", outer * inner), a.floats(1, "y", outer * inner), outer, inner, a.flag(4, "log"));
}
