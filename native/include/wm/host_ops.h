// The CPU core: the kernels of ops.h over host memory (JavaScript typed
// arrays passed without copies), for machines with no GPU. Same scalar
// definitions as the CUDA kernels (wm/elementwise.h); large loops are split
// over the machine's cores.
#pragma once
#include <cstdint>
#include <vector>

#include "wm/dtype.h"
#include "wm/ops.h"

namespace wm {
namespace host {

void unary(UnaryOp op, DType in, DType out, const void* x, void* y, int64_t n, float alpha, float beta);

void binary(BinaryOp op, DType in, DType out, const void* a, const void* b, void* y, const std::vector<int64_t>& outShape,
            const std::vector<int64_t>& aStrides, const std::vector<int64_t>& bStrides);

void select(DType t, const void* cond, const void* a, const void* b, void* y, const std::vector<int64_t>& outShape,
            const std::vector<int64_t>& condStrides, const std::vector<int64_t>& aStrides, const std::vector<int64_t>& bStrides);

void stridedCopy(int elemSize, const void* src, int64_t srcOffset, const std::vector<int64_t>& srcStrides,
                 const std::vector<int64_t>& srcMod, void* dst, int64_t dstOffset, const std::vector<int64_t>& dstStrides,
                 const std::vector<int64_t>& shape);

// Reduces the middle axis of an [outer, reduce, inner] view (no transpose
// needed when the reduced axes are contiguous).
void reduce(ReduceOp op, DType in, DType out, const void* x, void* y, int64_t outer, int64_t reduceSize, int64_t inner);

// The host versions of wm::oneHot and wm::scatterNd (scatterNd: every index
// already checked by the caller; out zero-filled; duplicates summed in update order).
void oneHot(DType t, const int32_t* indices, void* y, int64_t n, int64_t depth, double onValue, double offValue);
void scatterNd(DType t, const int32_t* indices, const void* updates, void* y, int64_t numUpdates, int64_t indexDepth, int64_t sliceSize,
               const std::vector<int64_t>& dims);

// The host versions of the 2-D window kernels of ops.h.
void depthwiseConv2d(const float* x, const float* w, float* y, const Window2D& g, int64_t mult);
void depthwiseConv2dInputGrad(const float* dy, const float* w, float* dx, const Window2D& g, int64_t mult, int64_t dyH, int64_t dyW);
void depthwiseConv2dFilterGrad(const float* x, const float* dy, float* dw, const Window2D& g, int64_t mult);
void pool2d(PoolOp op, const float* x, void* y, const Window2D& g);
void pool2dGrad(PoolOp op, const float* dy, const int* argmax, float* dx, const Window2D& g);

void softmax(const float* x, float* y, int64_t outer, int64_t inner, bool log);

// The host version of wm::topK.
void topK(DType dt, const void* x, void* values, int32_t* indices, int64_t rows, int64_t n, int64_t k);

// The host version of wm::cumulative.
void cumulative(bool product, DType dt, const void* x, void* y, int64_t outer, int64_t n, int64_t inner, bool exclusive, bool reverse);

// The host versions of wm::softmaxCrossEntropy / softmaxCrossEntropyGrad
// (labels: float32 [rows, classes], or int32 [rows] with classIds).
void softmaxCrossEntropy(const float* logits, const void* labels, bool classIds, int64_t rows, int64_t classes, float scale, float* rowLoss,
                         float* total);
void softmaxCrossEntropyGrad(const float* logits, const void* labels, bool classIds, int64_t rows, int64_t classes, const float* dLoss,
                             bool perRow, float scale, float* dLogits);

void batchMatMul(const float* a, const float* b, float* c, int64_t batch, int64_t m, int64_t n, int64_t k, bool transA, bool transB,
                 int64_t aBatchStride, int64_t bBatchStride);

void sumSlices(const float* base, int slices, int64_t strideElems, int64_t n, float scale, float* out);
// The CUDA dropout's loop (wm/ops.h).
void dropout(const float* x, float* y, int64_t n, uint32_t threshold, float scale, uint64_t seed);
// out[i] = in[i] rounded to the all-reduce's wire type (0 float32, 1 float16,
// 2 bfloat16) and back, as the GPU kernels round what they send.
void roundToWire(const float* in, float* out, int64_t n, int wire);

// Threads the CPU kernels of this process use (see ThreadPool::poolThreads);
// throws if WM_THREADS is malformed.
int threads();

// Adds row r of x [rows, inner] into row ids[r] of y [numSegments, inner]
// (ids outside [0, numSegments) skipped), float32 or int32, each segment's
// rows in row order (as tfjs-backend-cpu adds them).
void segmentSum(DType dt, const void* x, const int32_t* ids, void* y, int64_t rows, int64_t inner, int64_t numSegments);

// Returns the position of the first out-of-range index, or -1.
int64_t gather(int elemSize, const void* x, const int32_t* indices, void* y, int64_t outer, int64_t axisDim, int64_t inner,
               int64_t numIndices, int64_t outerPerBatch);

}  // namespace host
}  // namespace wm
