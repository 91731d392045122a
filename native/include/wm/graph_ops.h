// Graph operations for sampled GNN training, the same on the GPU and the CPU:
// unique-and-relabel of sampled vertices, neighbour aggregation (a CSR
// sparse x dense product, forward and, through the transposed graph,
// backward) and negative sampling for link prediction.
#pragma once
#include <cstdint>
#include <vector>

#include "wm/sampling.h"

namespace wm {

// The k-th draw for negative pair i: u and v uniform over [0, numVertices).
WM_EHD void negativeDraw(uint64_t seed, int64_t i, int k, int64_t numVertices, int32_t* u, int32_t* v) {
  *u = static_cast<int32_t>(hashBelow(sampleHash(seed ^ 0x6e6567ull, static_cast<uint64_t>(i), 2 * k), numVertices));
  *v = static_cast<int32_t>(hashBelow(sampleHash(seed ^ 0x6e6567ull, static_cast<uint64_t>(i), 2 * k + 1), numVertices));
}

// Whether u -> v is an edge (each row's neighbours sorted ascending).
// Off: the row offsets' type, int32_t (graphs from JavaScript arrays) or int64_t (native graphs).
template <typename Off>
WM_EHD bool csrHasEdge(const Off* rowPtr, const int32_t* colIdx, int32_t u, int32_t v) {
  int64_t lo = rowPtr[u], hi = rowPtr[u + 1];
  while (lo < hi) {
    int64_t mid = (lo + hi) >> 1;
    if (colIdx[mid] < v)
      lo = mid + 1;
    else
      hi = mid;
  }
  return lo < rowPtr[u + 1] && colIdx[lo] == v;
}

constexpr int kNegativeTries = 64;

// Device (addresses) ----
// values[0, count) = the distinct values of x in order of first occurrence,
// inverse[i] = the position of x[i] among them. values must hold n slots.
int64_t uniqueInt32(uint64_t x, int64_t n, uint64_t values, uint64_t inverse);

// One hop's unique-and-relabel without sorting, for vertex ids in
// [0, numVertices): the candidates are dst (distinct) then ids; values gets
// the distinct vertices in order of first occurrence (dst first, as a
// prefix) and neighbors[j] the position in values of ids[j] — what
// tf.unique(concat(dst, ids)) gives. `map` is numVertices uint64 of scratch,
// each entry a stamp (high 32 bits) and a position: a call claims with
// `stamp`, which must be below every stamp the map holds (all ones when
// new; each call one less), so nothing is put back. Returns the count (a
// host read of this stream). Ids outside the range are skipped (callers
// pass vertices of the graph).
int64_t relabelVertices(uint64_t dst, int64_t nDst, uint64_t ids, int64_t nIds, int64_t numVertices, uint64_t map, int64_t stamp,
                        uint64_t values, uint64_t neighbors);
// out[r, :] = rowScale[r] * sum over CSR entries e of row r of weight[e] * x[colIdx[e], :]
// (rowScale, weight: float32 or 0 for ones). Rows of more than chunkEntries
// entries may be split into chunks summed apart (numLong > 0): `splits` is
// int32 longRow[numLong] (the rows longer than chunkEntries, all of them),
// chunkPtr[numLong + 1] (long row i's chunks), chunkRow[numChunks],
// chunkStart[numChunks] (each chunk's row and first entry; a chunk ends
// chunkEntries later or at its row's end) — see csrSplits in aggregate.ts.
void csrSpmm(uint64_t rowPtr, uint64_t colIdx, uint64_t weight, uint64_t rowScale, int64_t numRows, uint64_t x, int64_t dim, uint64_t out,
             uint64_t splits, int64_t numLong, int64_t numChunks, int64_t chunkEntries);
// The transposed product without the transpose (GPU): dx [numCols, dim], dx[c] = the sum of rowScale[r] * weight[e] *
// dy[r] over the entries e of rows r with colIdx[e] == c (rowScale, weight: float32 or 0 for ones; `entries` the
// block's, rowPtr[numRows]), each column's sum in entry order: the same bits every run.
void csrSpmmScatter(uint64_t rowPtr, uint64_t colIdx, uint64_t weight, uint64_t rowScale, int64_t numRows, int64_t entries, uint64_t dy,
                    int64_t dim, uint64_t dx, int64_t numCols);
// Graph attention (GAT) over a CSR block, `heads` heads of `dim` features:
// for entry e of row r (source s = colIdx[e]) z_e = leakyRelu(src[s, h] +
// dst[r, h], slope); alpha = softmax of z over row r's entries; out[r, h, :]
// = sum_e alpha_e feat[s, h, :] (zeros for a row without entries). feat is
// [numCols, heads, dim], src [numCols, heads], dst [numRows, heads], each
// row `strides` floats after the previous (so columns of a wider matrix are
// read in place); out [numRows, heads, dim] and alpha [nnz, heads] (kept for
// the gradient) are packed.
struct GatStrides {
  int64_t feat, src, dst;  // at least heads * dim, heads, heads
};
void gatForward(uint64_t rowPtr, uint64_t colIdx, int64_t numRows, uint64_t feat, uint64_t src, uint64_t dst, int64_t heads, int64_t dim,
                float slope, uint64_t out, uint64_t alpha, GatStrides strides);
// The gradient's row pass: dAlpha_e = dOut[r, h, :] . feat[s, h, :], dz_e =
// alpha_e (dAlpha_e - sum over the row of alpha dAlpha) leakyRelu'(z_e) into
// dz [nnz, heads], and dDst[r, h] = the row's sum of dz (dDst laid out as dst).
void gatBackwardRows(uint64_t rowPtr, uint64_t colIdx, int64_t numRows, uint64_t feat, uint64_t src, uint64_t dst, int64_t heads,
                     int64_t dim, float slope, uint64_t alpha, uint64_t dOut, uint64_t dz, uint64_t dDst, GatStrides strides);
// The column pass over the transposed block (rowPtrT over numCols sources;
// colIdxT the destination row, edgeT the entry in the forward block):
// dFeat[s, h, :] = sum alpha_e dOut[r, h, :], dSrc[s, h] = sum dz_e (dFeat
// and dSrc laid out as feat and src).
void gatBackwardCols(uint64_t rowPtrT, uint64_t colIdxT, uint64_t edgeT, int64_t numCols, uint64_t alpha, uint64_t dz, uint64_t dOut,
                     int64_t heads, int64_t dim, uint64_t dFeat, uint64_t dSrc, GatStrides strides);
// The column pass without the transposed block (GPU): every entry e of row r (source s = colIdx[e]) adds
// alpha_e dOut[r, h, :] into dFeat[s, h, :] and dz_e into dSrc[s, h], by atomics (into what they hold: zero them first).
void gatBackwardScatter(uint64_t rowPtr, uint64_t colIdx, int64_t numRows, int64_t numCols, uint64_t alpha, uint64_t dz, uint64_t dOut,
                        int64_t heads, int64_t dim, uint64_t dFeat, uint64_t dSrc, GatStrides strides);
// Fixed fan-out mean (GPU): out[r] = mean over e < fanout of x[neighbors[r * fanout + e]].
void neighborMean(uint64_t neighbors, int64_t numRows, int64_t fanout, uint64_t x, int64_t dim, uint64_t out);
// Its gradient (GPU): dx [numInputs, dim] = 0, then dx[neighbors[r * fanout + e]] += dy[r] / fanout.
void neighborMeanGrad(uint64_t neighbors, int64_t numRows, int64_t fanout, uint64_t dy, int64_t dim, uint64_t dx, int64_t numInputs);
// count pairs u != v that are not edges; returns how many needed every try
// (then the last draw stands) — 0 unless the graph is nearly complete.
// wideOffsets: rowPtr holds int64 offsets (else int32).
int64_t negativePairs(uint64_t rowPtr, uint64_t colIdx, int64_t numVertices, int64_t count, uint64_t seed, uint64_t src, uint64_t dst,
                      bool wideOffsets);

namespace host {
// m R-MAT edges over 2^scale vertices, the draws of src/graph/rmat.ts.
void rmatEdges(int scale, int64_t m, double a, double b, double c, uint32_t seed, bool permute, int32_t* src, int32_t* dst);
int64_t uniqueInt32(const int32_t* x, int64_t n, int32_t* values, int32_t* inverse);
void csrSpmm(const int32_t* rowPtr, const int32_t* colIdx, const float* weight, const float* rowScale, int64_t numRows, const float* x,
             int64_t dim, float* out);
template <typename Off>
int64_t negativePairs(const Off* rowPtr, const int32_t* colIdx, int64_t nnz, int64_t numVertices, int64_t count, uint64_t seed,
                      int32_t* src, int32_t* dst);
// The host versions of the graph attention passes above.
void gatForward(const int32_t* rowPtr, const int32_t* colIdx, int64_t numRows, const float* feat, const float* src, const float* dst,
                int64_t heads, int64_t dim, float slope, float* out, float* alpha, GatStrides strides);
void gatBackwardRows(const int32_t* rowPtr, const int32_t* colIdx, int64_t numRows, const float* feat, const float* src, const float* dst,
                     int64_t heads, int64_t dim, float slope, const float* alpha, const float* dOut, float* dz, float* dDst,
                     GatStrides strides);
void gatBackwardCols(const int32_t* rowPtrT, const int32_t* colIdxT, const int32_t* edgeT, int64_t numCols, const float* alpha,
                     const float* dz, const float* dOut, int64_t heads, int64_t dim, float* dFeat, float* dSrc, GatStrides strides);
}  // namespace host

}  // namespace wm
