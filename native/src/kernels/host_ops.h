// Host kernels that other code calls directly (native/tests/ checks their edge cases): the rest of the
// C++ CPU core is reached through the op table only. Same scalar definitions as the CUDA kernels
// (kernels/elementwise.h); large loops are split over the machine's cores.
#pragma once
#include <cstdint>

#include "kernels/ops.h"
#include "wm/dtype.h"

namespace wm {
namespace host {

// The k largest entries of each row of a [rows, n] float32 or int32 view, largest first, equal values in
// order of position (tfjs' TopK): values [rows, k] and their int32 positions in the row.
void topK(DType dt, const void* x, void* values, int32_t* indices, int64_t rows, int64_t n, int64_t k);

// GatherV2 on a [outer, axisDim, inner] view with int32 indices: returns the position of the first
// out-of-range index (nothing written), or -1.
int64_t gather(int elemSize, const void* x, const int32_t* indices, void* y, int64_t outer, int64_t axisDim, int64_t inner,
               int64_t numIndices, int64_t outerPerBatch);

// C[z] = A[z] B[z] for z < batch, float32 row-major ([m, k] by [k, n]; a transposed operand read in place),
// A[z] at a + z * aBatchStride, B[z] at b + z * bBatchStride, C[z] at c + z * m * n (the BatchMatMul op's body).
void batchMatMul(const float* a, const float* b, float* c, int64_t batch, int64_t m, int64_t n, int64_t k, bool transA, bool transB,
                 int64_t aBatchStride, int64_t bBatchStride);

}  // namespace host
}  // namespace wm
