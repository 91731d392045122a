// Softmax cross-entropy and its gradient on the host (the CPU path of
// softmax_cross_entropy.cu / softmax_cross_entropy_grad.cu): rows split over
// the cores, the total summed in row order.
#include <cmath>
#include <limits>
#include <vector>

#include "runtime/parallel.h"
#include "wm/op_registry.h"
#include "kernels/host_ops.h"

namespace wm {
namespace host {
namespace {

double logSumExp(const float* x, int64_t n) {
  float m = -std::numeric_limits<float>::infinity();
  for (int64_t c = 0; c < n; ++c) m = std::max(m, x[c]);
  double s = 0;
  for (int64_t c = 0; c < n; ++c) s += std::exp(static_cast<double>(x[c]) - m);
  return m + std::log(s);
}

}  // namespace

void softmaxCrossEntropy(const float* logits, const void* labels, bool classIds, int64_t rows, int64_t classes, float scale, float* rowLoss,
                         float* total) {
  std::vector<float> own;
  if (!rowLoss) {
    own.resize(static_cast<size_t>(rows));
    rowLoss = own.data();
  }
  parallelFor(rows, 4096 / std::max<int64_t>(classes, 1) + 1, [&](int64_t begin, int64_t end) {
    for (int64_t r = begin; r < end; ++r) {
      const float* xr = logits + r * classes;
      const double lse = logSumExp(xr, classes);
      if (classIds) {
        rowLoss[r] = static_cast<float>(lse - xr[static_cast<const int32_t*>(labels)[r]]);
      } else {
        const float* yr = static_cast<const float*>(labels) + r * classes;
        double sy = 0, syx = 0;
        for (int64_t c = 0; c < classes; ++c) sy += yr[c], syx += static_cast<double>(yr[c]) * xr[c];
        rowLoss[r] = static_cast<float>(sy * lse - syx);
      }
    }
  });
  if (total) {
    double s = 0;
    for (int64_t r = 0; r < rows; ++r) s += rowLoss[r];
    *total = static_cast<float>(s * scale);
  }
}

void softmaxCrossEntropyGrad(const float* logits, const void* labels, bool classIds, int64_t rows, int64_t classes, const float* dLoss,
                             bool perRow, float scale, float* dLogits) {
  parallelFor(rows, 4096 / std::max<int64_t>(classes, 1) + 1, [&](int64_t begin, int64_t end) {
    for (int64_t r = begin; r < end; ++r) {
      const float* xr = logits + r * classes;
      float* dr = dLogits + r * classes;
      const double lse = logSumExp(xr, classes);
      const float g = scale * dLoss[perRow ? r : 0];
      if (classIds) {
        const int32_t label = static_cast<const int32_t*>(labels)[r];
        for (int64_t c = 0; c < classes; ++c) dr[c] = static_cast<float>(std::exp(xr[c] - lse) - (c == label ? 1.0 : 0.0)) * g;
      } else {
        const float* yr = static_cast<const float*>(labels) + r * classes;
        double sy = 0;
        for (int64_t c = 0; c < classes; ++c) sy += yr[c];
        for (int64_t c = 0; c < classes; ++c) dr[c] = static_cast<float>(std::exp(xr[c] - lse) * sy - yr[c]) * g;
      }
    }
  });
}

}  // namespace host
}  // namespace wm

namespace {
// Labels: an Int32Array of one class id per row (classIds), else a Float32Array of rows x classes.
const void* labelsArg(const wm::OpArgs& a, size_t i, bool classIds, int64_t rows, int64_t classes) {
  return classIds ? static_cast<const void*>(a.ints(i, "labels", rows)) : a.floats(i, "labels", rows * classes);
}
}  // namespace

// softmaxCrossEntropy(logits, labels, classIds, rows, classes, scale, rowLoss | null, total | null)
WM_OP(softmaxCrossEntropy, Host, a) {
  const bool ids = a.flag(2, "classIds");
  const int64_t rows = a.count(3, "rows"), classes = a.count(4, "classes");
  wm::host::softmaxCrossEntropy(a.floats(0, "logits", rows * classes), labelsArg(a, 1, ids, rows, classes), ids, rows, classes,
                                static_cast<float>(a.number(5, "scale")), a.floatsOrNull(6, "rowLoss", rows),
                                a.floatsOrNull(7, "total", 1));
}

// softmaxCrossEntropyGrad(logits, labels, classIds, rows, classes, dLoss, perRow, scale, dLogits)
WM_OP(softmaxCrossEntropyGrad, Host, a) {
  const bool ids = a.flag(2, "classIds"), perRow = a.flag(6, "perRow");
  const int64_t rows = a.count(3, "rows"), classes = a.count(4, "classes");
  wm::host::softmaxCrossEntropyGrad(a.floats(0, "logits", rows * classes), labelsArg(a, 1, ids, rows, classes), ids, rows, classes,
                                    a.floats(5, "dLoss", perRow ? rows : 1), perRow, static_cast<float>(a.number(7, "scale")),
                                    a.floats(8, "dLogits", rows * classes));
}
