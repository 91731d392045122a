// Neighbour aggregation (a CSR matrix times dense rows): a group of lanes per
// output row (a warp for rows of 128 floats, half a warp for 64...), float4
// loads when the width allows. The group reads its row's entries a group's
// worth at a time, one entry per lane (coalesced), and passes each entry's
// column and weight round by shuffles; four neighbour rows are loaded before
// any is added, so each lane keeps four loads in flight instead of walking
// entry -> column -> row one dependent load at a time. Each output element
// still sums its entries in order, as the CPU kernel does.
// Rows longer than a chunk (a power-law graph's hubs: tens of thousands of
// entries on one group kept the whole GPU waiting for it) are left to a
// second kernel that sums each chunk of them into a partial row, and a third
// that adds a row's partials in order: run to run the same sums. Wide rows go
// a slab of columns per pass (slabFloats).
#include <algorithm>
#include <cstdlib>
#include <string>

#include "runtime/check.h"
#include "runtime/lane_groups.cuh"
#include "runtime/launch.cuh"
#include "runtime/scratch.cuh"
#include "runtime/vec4.cuh"
#include "wm/op_registry.h"
#include "wm/graph_ops.h"
#include "wm/runtime.h"

namespace wm {
namespace {

template <int VEC>
struct Vec;
template <>
struct Vec<4> {
  using T = float4;
  static __device__ __forceinline__ T load(const float* p) { return __ldg(reinterpret_cast<const float4*>(p)); }
  static __device__ __forceinline__ void fma(float* acc, float w, const T& v) {
    acc[0] += w * v.x, acc[1] += w * v.y, acc[2] += w * v.z, acc[3] += w * v.w;
  }
  static __device__ __forceinline__ void store(float* p, const float* acc, float s) {
    store4(p, make_float4(acc[0] * s, acc[1] * s, acc[2] * s, acc[3] * s));
  }
};
template <>
struct Vec<1> {
  using T = float;
  static __device__ __forceinline__ T load(const float* p) { return __ldg(p); }
  static __device__ __forceinline__ void fma(float* acc, float w, const T& v) { acc[0] += w * v; }
  static __device__ __forceinline__ void store(float* p, const float* acc, float s) { p[0] = acc[0] * s; }
};

// Lane group position and the shuffle mask naming only the group's lanes (a
// warp's groups walk rows of different lengths).
template <int LANES>
struct Group {
  int g, l;
  unsigned mask;
  __device__ Group() {
    const int lane = threadIdx.x & 31;
    g = lane / LANES, l = lane % LANES;
    mask = LANES == 32 ? 0xffffffffu : ((1u << LANES) - 1u) << (g * LANES);
  }
};

// acc += sum over entries [begin, end) of weight[e] * x[colIdx[e], vector j] (lanes with !on only pass entries on).
template <int VEC, int LANES>
__device__ __forceinline__ void accumulate(const Group<LANES>& grp, const int32_t* __restrict__ colIdx, const float* __restrict__ weight,
                                           int64_t begin, int64_t end, const float* xj, int64_t dim, bool on, float* acc) {
  using V = Vec<VEC>;
  for (int64_t base = begin; base < end; base += LANES) {
    const int64_t e = base + grp.l;
    const int c = e < end ? colIdx[e] : 0;
    const float w = e < end ? (weight ? weight[e] : 1.f) : 0.f;
    const int n = static_cast<int>(end - base < LANES ? end - base : LANES);
    int k = 0;
    for (; k + 4 <= n; k += 4) {
      int ck[4];
      float wk[4];
      typename V::T v[4];
#pragma unroll
      for (int u = 0; u < 4; ++u) {
        ck[u] = __shfl_sync(grp.mask, c, k + u, LANES);
        wk[u] = __shfl_sync(grp.mask, w, k + u, LANES);
      }
#pragma unroll
      for (int u = 0; u < 4; ++u)
        if (on) v[u] = V::load(xj + static_cast<int64_t>(ck[u]) * dim);
#pragma unroll
      for (int u = 0; u < 4; ++u)
        if (on) V::fma(acc, wk[u], v[u]);
    }
    for (; k < n; ++k) {
      const int ck = __shfl_sync(grp.mask, c, k, LANES);
      const float wk = __shfl_sync(grp.mask, w, k, LANES);
      if (on) V::fma(acc, wk, V::load(xj + static_cast<int64_t>(ck) * dim));
    }
  }
}

// The columns a pass computes: `width` floats of rows `stride` floats apart
// (the pointers handed over start at the pass's first column).
struct Cols {
  int64_t stride, width;
};

// dst = scale * (sum over entries [begin, end) of weight[e] * x[colIdx[e]]): the group's lanes take
// the row's vectors LANES at a time.
template <int VEC, int LANES>
__device__ __forceinline__ void rowProduct(const Group<LANES>& grp, const int32_t* __restrict__ colIdx, const float* __restrict__ weight,
                                           int64_t begin, int64_t end, const float* x, Cols c, float* dst, float scale) {
  const int64_t vecs = c.width / VEC;
  for (int64_t j0 = 0; j0 < vecs; j0 += LANES) {
    const int64_t j = j0 + grp.l;
    float acc[VEC] = {};
    accumulate<VEC, LANES>(grp, colIdx, weight, begin, end, x + j * VEC, c.stride, j < vecs, acc);
    if (j < vecs) Vec<VEC>::store(dst + j * VEC, acc, scale);
  }
}

// What the long rows' kernels read: `splits` holds longRow[numLong], chunkPtr[numLong + 1]
// (each long row's chunks), chunkRow[numChunks], chunkStart[numChunks].
struct Splits {
  const int32_t* longRow;
  const int32_t* chunkPtr;
  const int32_t* chunkRow;
  const int32_t* chunkStart;
  int64_t numLong, numChunks, chunkEntries;
};

// Row r of `items` rows (output rows, or chunks) is handled by group g of warp w; the grid's warps stride.
#define WM_FOR_GROUP_ITEMS(r, items, LANES)                                                                   \
  for (int64_t r##Base = ((static_cast<int64_t>(blockIdx.x) * blockDim.x + threadIdx.x) >> 5) * (32 / LANES), \
               r##Step = ((static_cast<int64_t>(gridDim.x) * blockDim.x) >> 5) * (32 / LANES);                \
       r##Base < (items); r##Base += r##Step)                                                                 \
    if (const int64_t r = r##Base + grp.g; r < (items))

// Rows of at most longAbove entries (longer ones are the split kernels').
template <int VEC, int LANES>
__global__ void spmmKernel(const int32_t* __restrict__ rowPtr, const int32_t* __restrict__ colIdx, const float* __restrict__ weight,
                           const float* __restrict__ rowScale, int64_t numRows, const float* __restrict__ x, Cols c,
                           float* __restrict__ out, int64_t longAbove) {
  const Group<LANES> grp;
  WM_FOR_GROUP_ITEMS(r, numRows, LANES) {
    const int64_t begin = rowPtr[r], end = rowPtr[r + 1];
    if (end - begin > longAbove) continue;
    rowProduct<VEC, LANES>(grp, colIdx, weight, begin, end, x, c, out + r * c.stride, rowScale ? rowScale[r] : 1.f);
  }
}

// Each chunk of a long row into its partial row.
template <int VEC, int LANES>
__global__ void spmmChunksKernel(const int32_t* __restrict__ rowPtr, const int32_t* __restrict__ colIdx, const float* __restrict__ weight,
                                 Splits sp, const float* __restrict__ x, Cols c, float* __restrict__ partial) {
  const Group<LANES> grp;
  WM_FOR_GROUP_ITEMS(k, sp.numChunks, LANES) {
    const int64_t begin = sp.chunkStart[k], rowEnd = rowPtr[sp.chunkRow[k] + 1];
    const int64_t end = begin + sp.chunkEntries < rowEnd ? begin + sp.chunkEntries : rowEnd;
    rowProduct<VEC, LANES>(grp, colIdx, weight, begin, end, x, c, partial + k * c.stride, 1.f);
  }
}

// A long row's partials added in order.
template <int VEC, int LANES>
__global__ void spmmMergeKernel(Splits sp, const float* __restrict__ rowScale, const float* __restrict__ partial, Cols c,
                                float* __restrict__ out) {
  using V = Vec<VEC>;
  const Group<LANES> grp;
  const int64_t vecs = c.width / VEC;
  WM_FOR_GROUP_ITEMS(i, sp.numLong, LANES) {
    const int64_t r = sp.longRow[i];
    for (int64_t j = grp.l; j < vecs; j += LANES) {
      float acc[VEC] = {};
      for (int64_t k = sp.chunkPtr[i]; k < sp.chunkPtr[i + 1]; ++k) V::fma(acc, 1.f, V::load(partial + k * c.stride + j * VEC));
      V::store(out + r * c.stride + j * VEC, acc, rowScale ? rowScale[r] : 1.f);
    }
  }
}

// Columns per pass: rows wider than a slab are multiplied a slab at a time,
// so that what the hubs of a power-law graph are read for (their slab of x)
// stays in L2 for the pass. 1 x H100, Â x over R-MAT scale 20 (33.6M
// entries), ms per call by slab of 64 / 128 / 256 / whole rows: width 256
// 7.53 / 5.99 / 6.85 / 6.94, width 512 15.08 / 12.05 / 13.83 / 16.24 (torch
// cuSPARSE 13.99), width 128 unchanged. WM_SPMM_SLAB (floats) overrides it
// (rounded down to whole float4s).
int64_t slabFloats(int64_t dim) {
  int64_t slab = 128;
  if (const char* v = std::getenv("WM_SPMM_SLAB"); v && *v) {
    char* end = nullptr;
    slab = std::strtoll(v, &end, 10);
    WM_REQUIRE(*end == '\0' && slab >= 4,
               std::string("WM_SPMM_SLAB must be an integer of at least 4 (floats per pass), got \"") + v + "\"");
  }
  return std::min(dim, slab / 4 * 4);
}

template <int VEC>
void launchSpmm(const int32_t* rowPtr, const int32_t* colIdx, const float* weight, const float* rowScale, int64_t numRows, const float* x,
                int64_t dim, float* out, const Splits& sp) {
  const int64_t slab = VEC == 4 ? slabFloats(dim) : dim;
  Scratch s;
  float* partial = sp.numLong > 0 ? s.get<float>(sp.numChunks * dim) : nullptr;
  for (int64_t c0 = 0; c0 < dim; c0 += slab) {
    const Cols c{dim, std::min(slab, dim - c0)};
    const int group = lanes::forVectors(c.width / VEC);
    lanes::with(group, [&](auto lanesPerRow) {
      constexpr int L = decltype(lanesPerRow)::value;
      const auto threadsFor = [](int64_t items) { return (items + 32 / L - 1) / (32 / L) * 32; };
      const int64_t longAbove = sp.numLong > 0 ? sp.chunkEntries : INT64_MAX;
      spmmKernel<VEC, L><<<gridFor(threadsFor(numRows)), kThreads, 0, stream()>>>(rowPtr, colIdx, weight, rowScale, numRows, x + c0, c,
                                                                                  out + c0, longAbove);
      WM_CUDA_LAUNCHED();
      if (sp.numLong == 0) return;
      spmmChunksKernel<VEC, L>
          <<<gridFor(threadsFor(sp.numChunks)), kThreads, 0, stream()>>>(rowPtr, colIdx, weight, sp, x + c0, c, partial + c0);
      WM_CUDA_LAUNCHED();
      spmmMergeKernel<VEC, L><<<gridFor(threadsFor(sp.numLong)), kThreads, 0, stream()>>>(sp, rowScale, partial + c0, c, out + c0);
      WM_CUDA_LAUNCHED();
    });
  }
}

}  // namespace

void csrSpmm(uint64_t rowPtr, uint64_t colIdx, uint64_t weight, uint64_t rowScale, int64_t numRows, uint64_t x, int64_t dim, uint64_t out,
             uint64_t splits, int64_t numLong, int64_t numChunks, int64_t chunkEntries) {
  if (numRows == 0 || dim == 0) return;
  WM_REQUIRE(numLong == 0 || (splits != 0 && numChunks >= numLong && chunkEntries > 0),
             "csrSpmm: long rows need their splits, at least a chunk each, and a positive chunk length");
  const int32_t* sp = as<int32_t>(splits);
  const Splits s{sp, sp + numLong, sp + 2 * numLong + 1, sp + 2 * numLong + 1 + numChunks, numLong, numChunks, chunkEntries};
  const bool wide = dim % 4 == 0 && aligned16({x, out});
  if (wide)
    launchSpmm<4>(as<int32_t>(rowPtr), as<int32_t>(colIdx), as<float>(weight), as<float>(rowScale), numRows, as<float>(x), dim,
                  as<float>(out), s);
  else
    launchSpmm<1>(as<int32_t>(rowPtr), as<int32_t>(colIdx), as<float>(weight), as<float>(rowScale), numRows, as<float>(x), dim,
                  as<float>(out), s);
}

}  // namespace wm

// csrSpmm(rowPtr, colIdx, weight | 0, rowScale | 0, numRows, x, dim, out, splits | 0, numLong, numChunks, chunkEntries)
WM_OP(csrSpmm, Device, a) {
  wm::csrSpmm(a.address(0, "rowPtr"), a.address(1, "colIdx"), a.address(2, "weight"), a.address(3, "rowScale"), a.count(4, "numRows"),
              a.address(5, "x"), a.count(6, "dim"), a.address(7, "out"), a.address(8, "splits"), a.count(9, "numLong"),
              a.count(10, "numChunks"), a.count(11, "chunkEntries"));
}
