// Kernel entry points of the core. Pointers are device addresses (uint64_t);
// every call queues work on the process's stream and returns at once.
// Shapes are given after the caller collapsed them to at most kMaxRank dims.
#pragma once
#include <cstdint>
#include <vector>

#include "wm/dtype.h"
#include "wm/elementwise.h"
#include "wm/window2d.h"

namespace wm {

constexpr int kMaxRank = 8;

enum class ReduceOp : int { Sum = 0, Prod, Max, Min, Mean, All, Any, ArgMax, ArgMin };

// y[i] = op(x[i]); alpha/beta are the op's scalars (LeakyRelu alpha, Step
// alpha, ClipByValue min/max).
void unary(UnaryOp op, DType in, DType out, uint64_t x, uint64_t y, int64_t n, float alpha, float beta);

// out[idx] = op(a[idx . aStrides], b[idx . bStrides]) over outShape; a
// broadcast dim has stride 0.
void binary(BinaryOp op, DType in, DType out, uint64_t a, uint64_t b, uint64_t y, const std::vector<int64_t>& outShape,
            const std::vector<int64_t>& aStrides, const std::vector<int64_t>& bStrides);

// y[i] = op(x[i], value), or op(value, x[i]) when scalarFirst: a tensor and a
// scalar whose value is on the host (x is contiguous, n elements).
void binaryScalar(BinaryOp op, DType in, DType out, uint64_t x, double value, bool scalarFirst, uint64_t y, int64_t n);

// 2-D windows over NHWC float32 images (wm/window2d.h): a depthwise
// convolution (filter [fH, fW, chans, mult]) and its gradients, pools and
// theirs. dy of the input gradient is [batch, dyH, dyW, chans*mult] (its
// first outH x outW pixels are read); the other dy are exactly the outputs'
// shape. pool2d with ArgMax writes int32 window positions (MaxPool's
// gradient takes them).
void depthwiseConv2d(uint64_t x, uint64_t w, uint64_t y, const Window2D& g, int64_t mult);
void depthwiseConv2dInputGrad(uint64_t dy, uint64_t w, uint64_t dx, const Window2D& g, int64_t mult, int64_t dyH, int64_t dyW);
void depthwiseConv2dFilterGrad(uint64_t x, uint64_t dy, uint64_t dw, const Window2D& g, int64_t mult);
void pool2d(PoolOp op, uint64_t x, uint64_t y, const Window2D& g);
// A 2-D convolution (filter [fH, fW, chans, outC]) and its gradients as
// implicit GEMMs (the windows read in place; GPU only: the CPU core
// multiplies window copies with its vectorised matmul, faster there).
// dy of the input gradient is [batch, dyH, dyW, outC] (its first outH x outW
// pixels are read); the filter gradient's dy is exactly the output's shape.
void conv2dForward(uint64_t x, uint64_t w, uint64_t y, const Window2D& g, int64_t outC);
void conv2dInputGrad(uint64_t dy, uint64_t w, uint64_t dx, const Window2D& g, int64_t outC, int64_t dyH, int64_t dyW);
void conv2dFilterGrad(uint64_t x, uint64_t dy, uint64_t dw, const Window2D& g, int64_t outC);
void pool2dGrad(PoolOp op, uint64_t dy, uint64_t argmax, uint64_t dx, const Window2D& g);

// y = cond ? a : b; cond is bool with condStrides over outShape.
void select(DType t, uint64_t cond, uint64_t a, uint64_t b, uint64_t y, const std::vector<int64_t>& outShape,
            const std::vector<int64_t>& condStrides, const std::vector<int64_t>& aStrides, const std::vector<int64_t>& bStrides);

void fill(DType t, uint64_t y, int64_t n, double value);

// The one copy kernel behind Transpose, Slice, StridedSlice, Concat, Pack,
// Unpack, Tile, Reverse, BroadcastTo: for every index idx of `shape`,
//   dst[dstOffset + idx . dstStrides] = src[srcOffset + (idx mod srcMod) . srcStrides]
// (srcMod[k] = shape[k] unless tiling). Offsets and strides in elements.
void stridedCopy(int elemSize, uint64_t src, int64_t srcOffset, const std::vector<int64_t>& srcStrides, const std::vector<int64_t>& srcMod,
                 uint64_t dst, int64_t dstOffset, const std::vector<int64_t>& dstStrides, const std::vector<int64_t>& shape);

// Reduces the middle axis of an [outer, inner, after] view (after = 1: the
// last axis of [outer, inner]).
void reduce(ReduceOp op, DType in, DType out, uint64_t x, uint64_t y, int64_t outer, int64_t inner, int64_t after = 1);

// Row-wise softmax (or log-softmax) of an [outer, inner] float32 view.
void softmax(uint64_t x, uint64_t y, int64_t outer, int64_t inner, bool log);

// Running sums (or products) along the middle axis of an [outer, n, inner]
// view, float32 or int32 (which wraps), as tfjs' cumsum / cumprod: exclusive
// leaves each element out of its own result, reverse runs from the end.
void cumulative(bool product, DType dt, uint64_t x, uint64_t y, int64_t outer, int64_t n, int64_t inner, bool exclusive, bool reverse);

// The k largest entries of each row of a [rows, n] float32 or int32 view,
// largest first, equal values in order of position (tfjs' TopK): values
// [rows, k] and their int32 positions in the row.
void topK(DType dt, uint64_t x, uint64_t values, uint64_t indices, int64_t rows, int64_t n, int64_t k);

// Softmax cross-entropy of [rows, classes] logits against labels: float32
// [rows, classes] (one-hot or any distribution) or, with classIds, int32
// [rows] class ids (each in [0, classes): the caller checks). Row i's loss is
// sum_c y_ic * (logsumexp_i - x_ic). Writes rowLoss[i] (may be 0) and/or
// total = scale * sum_i rowLoss[i] (may be 0; summed in row order).
void softmaxCrossEntropy(uint64_t logits, uint64_t labels, bool classIds, int64_t rows, int64_t classes, float scale, uint64_t rowLoss,
                         uint64_t total);

// Its gradient in the logits: dx_ic = (softmax_ic * sum_c y_ic - y_ic) * g_i,
// g_i = scale * dLoss[perRow ? i : 0]. Labels get no gradient.
void softmaxCrossEntropyGrad(uint64_t logits, uint64_t labels, bool classIds, int64_t rows, int64_t classes, uint64_t dLoss, bool perRow,
                             float scale, uint64_t dLogits);

// C[b] = op(A[b]) x op(B[b]) + beta C[b], float32, row-major;
// aBatchStride/bBatchStride of 0 broadcast one matrix over the batch. Uses
// cuBLAS when it loads.
void batchMatMul(uint64_t a, uint64_t b, uint64_t c, int64_t batch, int64_t m, int64_t n, int64_t k, bool transA, bool transB,
                 int64_t aBatchStride, int64_t bBatchStride, float beta = 0.f);

// y[r, c] = act(y[r, c] + bias[c]) in place over [rows, cols]; act is ReLU or the identity.
void biasActivation(uint64_t y, uint64_t bias, int64_t rows, int64_t cols, bool relu);

// Its gradient: dz = relu ? dy * (y > 0) : dy (y the activation's output),
// dBias[c] = sum_r dz[r, c] (in a fixed order).
void biasActivationGrad(uint64_t dy, uint64_t y, int64_t rows, int64_t cols, bool relu, uint64_t dz, uint64_t dBias);
bool cublasAvailable();

// GatherV2 on a [outer, axisDim, inner] view with int32 indices of
// [batch?] shape: out[o, i, j] = x[o, idx[o / outerPerBatch, i], j].
// Out-of-range indices write zeros and record the first bad position in
// *errorFlag (device int64, -1 when all were valid) if errorFlag != 0.
void gather(DType t, uint64_t x, uint64_t indices, uint64_t y, int64_t outer, int64_t axisDim, int64_t inner, int64_t numIndices,
            int64_t outerPerBatch, uint64_t errorFlag);

// out[segment[i], j] += x[i, j]; out must be zero-filled; ids outside
// [0, numSegments) are skipped (as tfjs-backend-cpu does).
void unsortedSegmentSum(DType t, uint64_t x, uint64_t segmentIds, uint64_t y, int64_t numRows, int64_t inner, int64_t numSegments);

// ScatterNd: out (zero-filled, outRows x sliceSize) += updates at the rows
// indexed by indices[n, indexDepth] into the leading `dims` of the output.
// A bad index row is skipped and its position recorded in *errorFlag.
void scatterNd(DType t, uint64_t indices, uint64_t updates, uint64_t y, int64_t numUpdates, int64_t indexDepth, int64_t sliceSize,
               const std::vector<int64_t>& dims, uint64_t errorFlag);

// out = scale * sum_r base[r * strideElems + i] over `slices` float32 slices
// (the reduction step of the one-shot all-reduce).
void sumSlices(uint64_t base, int slices, int64_t strideElems, int64_t n, float scale, uint64_t out);

void oneHot(DType t, uint64_t indices, uint64_t y, int64_t n, int64_t depth, double onValue, double offValue);

// Dropout of n float32 values: y = x * scale where wm/dropout_mask.h keeps
// the position, else 0 (x may equal y).
void dropout(uint64_t x, uint64_t y, int64_t n, uint32_t threshold, float scale, uint64_t seed);

}  // namespace wm
