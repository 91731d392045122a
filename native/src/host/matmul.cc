// Host batched matrix product, float32, row-major. B is brought into [k, n]
// row order (A into [m, k]) once per batch so the inner loop is a
// contiguous axpy the compiler vectorises.
#include <vector>

#include "parallel.h"
#include "wm/host_ops.h"

namespace wm {
namespace host {

void batchMatMul(const float* a, const float* b, float* c, int64_t batch, int64_t m, int64_t n, int64_t k,
                 bool transA, bool transB, int64_t aBatchStride, int64_t bBatchStride) {
  std::vector<float> at, bt;
  for (int64_t z = 0; z < batch; ++z) {
    const float* A = a + z * aBatchStride;
    const float* B = b + z * bBatchStride;
    float* C = c + z * m * n;
    if (transA) {
      at.resize(m * k);
      for (int64_t p = 0; p < k; ++p)
        for (int64_t i = 0; i < m; ++i) at[i * k + p] = A[p * m + i];
      A = at.data();
    }
    if (transB) {
      bt.resize(k * n);
      for (int64_t j = 0; j < n; ++j)
        for (int64_t p = 0; p < k; ++p) bt[p * n + j] = B[j * k + p];
      B = bt.data();
    }
    const float* Ar = A;
    const float* Br = B;
    parallelFor(m, std::max<int64_t>(1, (1 << 16) / std::max<int64_t>(n * k, 1)), [&](int64_t rb, int64_t re) {
      for (int64_t i = rb; i < re; ++i) {
        float* ci = C + i * n;
        for (int64_t j = 0; j < n; ++j) ci[j] = 0.f;
        const float* ai = Ar + i * k;
        for (int64_t p = 0; p < k; ++p) {
          float s = ai[p];
          const float* bp = Br + p * n;
          for (int64_t j = 0; j < n; ++j) ci[j] += s * bp[j];
        }
      }
    });
  }
}

}  // namespace host
}  // namespace wm
