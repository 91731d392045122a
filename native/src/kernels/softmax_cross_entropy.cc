// Softmax cross-entropy and its gradient on the host (the CPU path of
// softmax_cross_entropy.cu / softmax_cross_entropy_grad.cu): rows split over
// the cores, each row's exponentials a vector at a time (libmvec) and its sums in
// lanes, in the CPU's widest vectors; the total summed in row order.
#include <cmath>
#include <limits>
#include <vector>

#include "runtime/host_vectors.h"
#include "runtime/parallel.h"
#include "runtime/vector_math.h"
#include "wm/op_registry.h"
#include "kernels/host_ops.h"

namespace wm {
namespace host {
namespace {

// Row x's softmax into p[0 .. n) (exp(x - max) a vector at a time, their sum in lanes); returns the row's
// log-sum-exp.
__attribute__((always_inline)) inline float softmaxRow(const float* x, int64_t n, float* p) {
  const float mx = laneMax(x, n);
  for (int64_t c = 0; c < n; ++c) p[c] = expf(x[c] - mx);
  const float z = rowSum(p, n);
  const float inv = 1.f / z;
  for (int64_t c = 0; c < n; ++c) p[c] *= inv;
  return mx + logf(z);
}

// Rows [begin, end)'s losses; p: `classes` floats of scratch.
__attribute__((always_inline)) inline void lossRows(const float* logits, const void* labels, bool classIds, int64_t begin, int64_t end,
                                                    int64_t classes, float* rowLoss, float* p) {
  for (int64_t r = begin; r < end; ++r) {
    const float* xr = logits + r * classes;
    const float lse = softmaxRow(xr, classes, p);
    if (classIds) {
      rowLoss[r] = lse - xr[static_cast<const int32_t*>(labels)[r]];
    } else {
      const float* yr = static_cast<const float*>(labels) + r * classes;
      const float sy = rowSum(yr, classes), syx = laneSum(classes, [yr, xr](int64_t c) { return yr[c] * xr[c]; });
      rowLoss[r] = sy * lse - syx;
    }
  }
}

// Rows [begin, end)'s gradients, each row's softmax written in its place first.
__attribute__((always_inline)) inline void gradRows(const float* logits, const void* labels, bool classIds, int64_t begin, int64_t end,
                                                    int64_t classes, const float* dLoss, bool perRow, float scale, float* dLogits) {
  for (int64_t r = begin; r < end; ++r) {
    const float* xr = logits + r * classes;
    float* dr = dLogits + r * classes;
    softmaxRow(xr, classes, dr);
    const float g = scale * dLoss[perRow ? r : 0];
    if (classIds) {
      for (int64_t c = 0; c < classes; ++c) dr[c] *= g;
      dr[static_cast<const int32_t*>(labels)[r]] -= g;
    } else {
      const float* yr = static_cast<const float*>(labels) + r * classes;
      const float sy = rowSum(yr, classes);
      for (int64_t c = 0; c < classes; ++c) dr[c] = (dr[c] * sy - yr[c]) * g;
    }
  }
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
    std::vector<float> p(static_cast<size_t>(classes));
    widest<lossRows>(logits, labels, classIds, begin, end, classes, rowLoss, p.data());
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
    widest<gradRows>(logits, labels, classIds, begin, end, classes, dLoss, perRow, scale, dLogits);
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
