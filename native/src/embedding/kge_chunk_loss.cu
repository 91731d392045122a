// The KGE chunk loss on the GPU in four launches: every (positive, negative) pair's raw value, each
// positive's loss and coefficients by a warp per positive (the softmax over its negatives, its own
// candidate's score and gradients), then the queries' gradients (over the group's negatives in order)
// and the negatives' gradients (over the group's positives in order): no atomics, the same sums
// whatever the GPU. Groups of at least 16 positives and 16 negatives go through register-tiled kernels
// shaped as a matrix product (a block per 64 x 64 outputs, 4 x 4 per thread, operands staged 16 at a
// time in shared memory); smaller groups through a thread per output coordinate. Where cuBLAS is
// loaded, the dot scorer's three products (the raw scores, both gradients) go to it, full float32, one
// strided batch over the groups each; so do the L2 scorer's, through |q - n|^2 = |q|^2 + |n|^2 - 2 q . n
// (as PyTorch-BigGraph computes its L2 distances), the norms and coefficient sums in small kernels.
#include <algorithm>
#include <climits>

#include "embedding/kge_chunk_loss.h"
#include "runtime/cublas_loader.h"
#include "runtime/launch.cuh"
#include "runtime/scratch.cuh"
#include "wm/op_registry.h"
#include "wm/runtime.h"
#include "wm/status.h"

namespace wm {
namespace {

constexpr int kTile = 32;

template <KgeScorer S>
__global__ void rawKernel(KgeChunkArgs k, const float* q, const float* neg, float* raw) {
  constexpr bool cx = S == KgeScorer::Complex;
  __shared__ float sq[kTile][kTile + 1], sn[kTile][kTile + 1];
  __shared__ float sqi[cx ? kTile : 1][kTile + 1], sni[cx ? kTile : 1][kTile + 1];
  const int tx = threadIdx.x, ty = threadIdx.y, t = ty * kTile + tx;
  const int64_t w = k.width, coords = k.coords(), half = w / 2, C = k.chunk, K = k.negatives, G = k.groups();
  const int64_t i0 = static_cast<int64_t>(blockIdx.y) * kTile, j0 = static_cast<int64_t>(blockIdx.x) * kTile;
  for (int64_t g = blockIdx.z; g < G; g += gridDim.z) {
    float acc[4] = {0.f, 0.f, 0.f, 0.f};
    for (int64_t c0 = 0; c0 < coords; c0 += kTile) {
      for (int e = t; e < kTile * kTile; e += kTile * 8) {
        const int r = e / kTile, c = e % kTile;
        const int64_t kk = c0 + c;
        const int64_t qi = g * C + i0 + r, nj = g * K + j0 + r;
        const bool qok = i0 + r < C && kk < coords, nok = j0 + r < K && kk < coords;
        sq[r][c] = qok ? q[qi * w + kk] : 0.f;
        sn[r][c] = nok ? neg[nj * w + kk] : 0.f;
        if (cx) {
          sqi[r][c] = qok ? q[qi * w + half + kk] : 0.f;
          sni[r][c] = nok ? neg[nj * w + half + kk] : 0.f;
        }
      }
      __syncthreads();
      const int n = coords - c0 < kTile ? static_cast<int>(coords - c0) : kTile;
      for (int c = 0; c < n; ++c) {
        const float nv = sn[tx][c], nvi = cx ? sni[tx][c] : 0.f;
#pragma unroll
        for (int r = 0; r < 4; ++r) acc[r] += kge::term<S>(sq[ty + 8 * r][c], nv, cx ? sqi[ty + 8 * r][c] : 0.f, nvi);
      }
      __syncthreads();
    }
#pragma unroll
    for (int r = 0; r < 4; ++r) {
      const int64_t i = i0 + ty + 8 * r, j = j0 + tx;
      if (i < C && j < K) raw[(g * C + i) * K + j] = kge::finish<S>(acc[r]);
    }
  }
}

// The register-tiled kernels: a block of 16 x 16 threads owns 64 x 64 outputs of a group, thread (tx, ty)
// those at rows ty + 16 r and columns tx + 16 m (r, m < 4); the summed-over axis goes 16 at a time.
constexpr int kBig = 64, kStep = 16, kPer = 4;
// Blocks of 256 threads that keep an H100/H200's 132 multiprocessors busy twice over.
constexpr int64_t kBusyBlocks = 264;

// raw[g][i][j] for i < chunk, j < negatives: columns are the group's negatives.
template <KgeScorer S>
__global__ void __launch_bounds__(256) rawTiledKernel(KgeChunkArgs k, const float* q, const float* neg, float* raw) {
  constexpr bool cx = S == KgeScorer::Complex;
  // A row of kBig + 1: the staging writes go down a column (16 coordinates of one row), which at a
  // stride of kBig floats would all fall in one shared-memory bank.
  __shared__ float sq[kStep][kBig + 1], sn[kStep][kBig + 1];
  __shared__ float sqi[cx ? kStep : 1][kBig + 1], sni[cx ? kStep : 1][kBig + 1];
  const int tx = threadIdx.x, ty = threadIdx.y, t = ty * 16 + tx;
  const int64_t w = k.width, coords = k.coords(), half = w / 2, C = k.chunk, K = k.negatives, G = k.groups();
  const int64_t i0 = static_cast<int64_t>(blockIdx.y) * kBig, j0 = static_cast<int64_t>(blockIdx.x) * kBig;
  for (int64_t g = blockIdx.z; g < G; g += gridDim.z) {
    float acc[kPer][kPer] = {};
    for (int64_t c0 = 0; c0 < coords; c0 += kStep) {
      for (int e = t; e < kStep * kBig; e += 256) {
        const int r = e / kStep, c = e % kStep;  // c fastest: a row's coordinates are adjacent in memory
        const int64_t kk = c0 + c, qi = g * C + i0 + r, nj = g * K + j0 + r;
        const bool qok = i0 + r < C && kk < coords, nok = j0 + r < K && kk < coords;
        sq[c][r] = qok ? q[qi * w + kk] : 0.f;
        sn[c][r] = nok ? neg[nj * w + kk] : 0.f;
        if (cx) {
          sqi[c][r] = qok ? q[qi * w + half + kk] : 0.f;
          sni[c][r] = nok ? neg[nj * w + half + kk] : 0.f;
        }
      }
      __syncthreads();
      const int n = coords - c0 < kStep ? static_cast<int>(coords - c0) : kStep;
      for (int c = 0; c < n; ++c) {
        float a[kPer], b[kPer], ai[kPer], bi[kPer];
#pragma unroll
        for (int x = 0; x < kPer; ++x) {
          a[x] = sq[c][ty + 16 * x];
          b[x] = sn[c][tx + 16 * x];
          ai[x] = cx ? sqi[c][ty + 16 * x] : 0.f;
          bi[x] = cx ? sni[c][tx + 16 * x] : 0.f;
        }
#pragma unroll
        for (int r = 0; r < kPer; ++r)
#pragma unroll
          for (int m = 0; m < kPer; ++m) acc[r][m] += kge::term<S>(a[r], b[m], ai[r], bi[m]);
      }
      __syncthreads();
    }
#pragma unroll
    for (int r = 0; r < kPer; ++r)
#pragma unroll
      for (int m = 0; m < kPer; ++m) {
        const int64_t i = i0 + ty + 16 * r, j = j0 + tx + 16 * m;
        if (i < C && j < K) raw[(g * C + i) * K + j] = kge::finish<S>(acc[r][m]);
      }
  }
}

// The gradients of one side's rows, tiled: with kQuery, dq[i][c] += sum over the group's negatives j of
// G[i][j] d term / d q (the rows are the group's positives, the summed axis its negatives); else
// dNeg[j][c] = sum over the group's positives i of G[i][j] d term / d candidate. Outputs are (row,
// coordinate) pairs, 64 x 64 a block; each thread keeps its 4 x 4 own-row values in registers.
//
// With slices > 1 the summed axis is cut into that many runs of `span` (a multiple of kStep), a block per
// run: run s writes its part to parts + s * partStride (whole rows, as out is laid out), which
// sumPartsKernel then adds in order (more blocks where a group's outputs are few: a small batch).
template <KgeScorer S, bool kQuery>
__global__ void __launch_bounds__(256) gradTiledKernel(KgeChunkArgs k, const float* q, const float* neg, const float* coef, float* out,
                                                       int slices, int64_t span, int64_t partStride) {
  constexpr bool cx = S == KgeScorer::Complex;
  __shared__ float sg[kStep][kBig + 1], so[kStep][kBig];  // sg padded as sq is: the queries' staging writes go down its columns
  __shared__ float soi[cx ? kStep : 1][kBig];
  const int tx = threadIdx.x, ty = threadIdx.y, t = ty * 16 + tx;
  const int64_t w = k.width, coords = k.coords(), half = w / 2, C = k.chunk, K = k.negatives, G = k.groups();
  const int64_t rows = kQuery ? C : K, along = kQuery ? K : C;
  const float* self = kQuery ? q : neg;
  const float* other = kQuery ? neg : q;
  const int64_t o0 = static_cast<int64_t>(blockIdx.y) * kBig, c0 = static_cast<int64_t>(blockIdx.x) * kBig;
  for (int64_t gs = blockIdx.z; gs < G * slices; gs += gridDim.z) {
    const int64_t g = gs / slices, slice = gs % slices;
    const int64_t first = slice * span, last = first + span < along ? first + span : along;
    float* dst = slices > 1 ? out + slice * partStride : out;
    const int64_t selfBase = g * rows, otherBase = g * along;
    float v[kPer][kPer], vi[kPer][kPer], re[kPer][kPer] = {}, im[kPer][kPer] = {};
#pragma unroll
    for (int r = 0; r < kPer; ++r)
#pragma unroll
      for (int m = 0; m < kPer; ++m) {
        const int64_t o = o0 + ty + 16 * r, c = c0 + tx + 16 * m;
        const bool ok = o < rows && c < coords;
        v[r][m] = ok ? self[(selfBase + o) * w + c] : 0.f;
        vi[r][m] = cx && ok ? self[(selfBase + o) * w + half + c] : 0.f;
      }
    for (int64_t l0 = first; l0 < last; l0 += kStep) {
      for (int e = t; e < kStep * kBig; e += 256) {
        // G[i][j] is at coef[(g C + i) K + j]: along j for the queries (l fastest), along i for the negatives.
        const int l = kQuery ? e % kStep : e / kBig, o = kQuery ? e / kStep : e % kBig;
        const int64_t gi = kQuery ? o0 + o : l0 + l, gj = kQuery ? l0 + l : o0 + o;
        sg[l][o] = (o0 + o < rows && l0 + l < last) ? coef[(g * C + gi) * K + gj] : 0.f;
      }
      for (int e = t; e < kStep * kBig; e += 256) {
        const int l = e / kBig, c = e % kBig;
        const bool ok = l0 + l < last && c0 + c < coords;
        so[l][c] = ok ? other[(otherBase + l0 + l) * w + c0 + c] : 0.f;
        if (cx) soi[l][c] = ok ? other[(otherBase + l0 + l) * w + half + c0 + c] : 0.f;
      }
      __syncthreads();
#pragma unroll 4
      for (int l = 0; l < kStep; ++l) {
        float gl[kPer], ol[kPer], oli[kPer];
#pragma unroll
        for (int x = 0; x < kPer; ++x) {
          gl[x] = sg[l][ty + 16 * x];
          ol[x] = so[l][tx + 16 * x];
          oli[x] = cx ? soi[l][tx + 16 * x] : 0.f;
        }
#pragma unroll
        for (int r = 0; r < kPer; ++r)
#pragma unroll
          for (int m = 0; m < kPer; ++m) {
            float a = 0.f, b = 0.f;
            if (kQuery) {
              kge::termGrad<S>(v[r][m], ol[m], vi[r][m], oli[m], &a, &b);
              re[r][m] += gl[r] * a;
              if (cx) im[r][m] += gl[r] * b;
            } else if (S == KgeScorer::Dot) {
              re[r][m] += gl[r] * ol[m];
            } else {
              kge::termGrad<S>(ol[m], v[r][m], oli[m], vi[r][m], &a, &b);
              re[r][m] -= gl[r] * a;
              if (cx) im[r][m] -= gl[r] * b;
            }
          }
      }
      __syncthreads();
    }
#pragma unroll
    for (int r = 0; r < kPer; ++r)
#pragma unroll
      for (int m = 0; m < kPer; ++m) {
        const int64_t o = o0 + ty + 16 * r, c = c0 + tx + 16 * m;
        if (o >= rows || c >= coords) continue;
        float* row = dst + (selfBase + o) * w;
        if (kQuery && slices == 1) {
          row[c] += re[r][m];
          if (cx) row[half + c] += im[r][m];
        } else {
          row[c] = re[r][m];
          if (cx) row[half + c] = im[r][m];
        }
      }
  }
}

// out[x] (+ with add) = the sum over s < slices, in order, of parts[s * stride + x], for x < n.
__global__ void sumPartsKernel(const float* parts, int slices, int64_t stride, int64_t n, bool add, float* out) {
  WM_GRID_STRIDE(x, n) {
    float sum = add ? out[x] : 0.f;
    for (int s = 0; s < slices; ++s) sum += parts[s * stride + x];
    out[x] = sum;
  }
}

__device__ __forceinline__ float warpSum(float v) {
  for (int o = 16; o > 0; o >>= 1) v += __shfl_xor_sync(0xffffffffu, v, o);
  return v;
}
__device__ __forceinline__ float warpMax(float v) {
  for (int o = 16; o > 0; o >>= 1) v = fmaxf(v, __shfl_xor_sync(0xffffffffu, v, o));
  return v;
}

// A warp per positive: its score, its loss, the coefficients of its pairs (over raw, in place), and
// the first part of its query's gradient (its own candidate's) with the candidate's gradient.
template <KgeScorer S>
__global__ void rowKernel(KgeChunkArgs k, const float* q, const float* own, float* raw, float* loss, float* dq, float* dOwn) {
  constexpr bool cx = S == KgeScorer::Complex;
  const int lane = threadIdx.x % 32;
  const int64_t warps = static_cast<int64_t>(gridDim.x) * (blockDim.x / 32);
  const int64_t w = k.width, coords = k.coords(), half = w / 2, K = k.negatives;
  for (int64_t i = blockIdx.x * static_cast<int64_t>(blockDim.x / 32) + threadIdx.x / 32; i < k.rows; i += warps) {
    const float* qr = q + i * w;
    const float* orow = own + i * w;
    float sum = 0.f;
    for (int64_t c = lane; c < coords; c += 32) sum += kge::term<S>(qr[c], orow[c], cx ? qr[half + c] : 0.f, cx ? orow[half + c] : 0.f);
    const float posRaw = kge::finish<S>(warpSum(sum));
    const float pos = kge::score<S>(posRaw, k.margin);
    float* r = raw + i * K;
    float total = 0.f, dPos = 0.f;
    if (k.loss == KgeLoss::Logistic) {
      const float scale = k.weight / (2.f * static_cast<float>(k.rows));
      float mx = -INFINITY;
      for (int64_t j = lane; j < K; j += 32) mx = fmaxf(mx, k.temperature * kge::score<S>(r[j], k.margin));
      mx = warpMax(mx);
      float z = 0.f;
      for (int64_t j = lane; j < K; j += 32) z += k.temperature > 0.f ? expf(k.temperature * kge::score<S>(r[j], k.margin) - mx) : 1.f;
      z = warpSum(z);
      for (int64_t j = lane; j < K; j += 32) {
        const float s = kge::score<S>(r[j], k.margin);
        const float wgt = (k.temperature > 0.f ? expf(k.temperature * s - mx) : 1.f) / z;
        total += wgt * kge::softplus(s);
        r[j] = kge::coefficient<S>(wgt * kge::sigmoid(s) * scale, r[j]);
      }
      total = (warpSum(total) + kge::softplus(-pos)) * scale;
      dPos = -kge::sigmoid(-pos) * scale;
    } else {
      const float scale = k.weight / (static_cast<float>(k.rows) * static_cast<float>(K));
      float active = 0.f;
      for (int64_t j = lane; j < K; j += 32) {
        const float x = k.lossMargin - pos + kge::score<S>(r[j], k.margin);
        if (x > 0.f) total += x, active += 1.f;
        r[j] = kge::coefficient<S>(x > 0.f ? scale : 0.f, r[j]);
      }
      total = warpSum(total) * scale;
      dPos = -warpSum(active) * scale;
    }
    if (lane == 0) loss[i] = total;
    const float gPos = kge::coefficient<S>(dPos, posRaw);
    for (int64_t c = lane; c < coords; c += 32) {
      float re = 0.f, im = 0.f;
      kge::termGrad<S>(qr[c], orow[c], cx ? qr[half + c] : 0.f, cx ? orow[half + c] : 0.f, &re, &im);
      dq[i * w + c] = gPos * re;
      dOwn[i * w + c] = S == KgeScorer::Dot ? gPos * qr[c] : -gPos * re;
      if (cx) {
        dq[i * w + half + c] = gPos * im;
        dOwn[i * w + half + c] = -gPos * im;
      }
    }
  }
}

// dq[i] += sum over the group's negatives j (in order) of G[i, j] d term / d q.
template <KgeScorer S>
__global__ void queryGradKernel(KgeChunkArgs k, const float* q, const float* neg, const float* coef, float* dq) {
  constexpr bool cx = S == KgeScorer::Complex;
  const int64_t w = k.width, coords = k.coords(), half = w / 2, C = k.chunk, K = k.negatives;
  WM_GRID_STRIDE(t, k.rows * coords) {
    const int64_t i = t / coords, c = t % coords, g = i / C;
    const float qv = q[i * w + c], qvi = cx ? q[i * w + half + c] : 0.f;
    const float* r = coef + i * K;
    float re = 0.f, im = 0.f;
    for (int64_t j = 0; j < K; ++j) {
      const float* nr = neg + (g * K + j) * w;
      float a = 0.f, b = 0.f;
      kge::termGrad<S>(qv, nr[c], qvi, cx ? nr[half + c] : 0.f, &a, &b);
      re += r[j] * a;
      im += r[j] * b;
    }
    dq[i * w + c] += re;
    if (cx) dq[i * w + half + c] += im;
  }
}

// dNeg[n] = sum over the group's positives i (in order) of G[i, j] d term / d candidate.
template <KgeScorer S>
__global__ void negativeGradKernel(KgeChunkArgs k, const float* q, const float* neg, const float* coef, float* dNeg) {
  constexpr bool cx = S == KgeScorer::Complex;
  const int64_t w = k.width, coords = k.coords(), half = w / 2, C = k.chunk, K = k.negatives;
  WM_GRID_STRIDE(t, k.groups() * K * coords) {
    const int64_t n = t / coords, c = t % coords, g = n / K, j = n % K;
    const float nv = neg[n * w + c], nvi = cx ? neg[n * w + half + c] : 0.f;
    float re = 0.f, im = 0.f;
    for (int64_t i = g * C; i < (g + 1) * C; ++i) {
      const float gc = coef[i * K + j];
      const float qv = q[i * w + c];
      if (S == KgeScorer::Dot) {
        re += gc * qv;
      } else {
        float a = 0.f, b = 0.f;
        kge::termGrad<S>(qv, nv, cx ? q[i * w + half + c] : 0.f, nvi, &a, &b);
        re -= gc * a;
        im -= gc * b;
      }
    }
    dNeg[n * w + c] = re;
    if (cx) dNeg[n * w + half + c] = im;
  }
}

// The L2 scorer on products: the squared norm of each row of x [n, w], a warp per row.
__global__ void squaredNormsKernel(const float* x, int64_t n, int64_t w, float* out) {
  const int lane = threadIdx.x % 32;
  const int64_t warps = static_cast<int64_t>(gridDim.x) * (blockDim.x / 32);
  for (int64_t i = blockIdx.x * static_cast<int64_t>(blockDim.x / 32) + threadIdx.x / 32; i < n; i += warps) {
    float sum = 0.f;
    for (int64_t c = lane; c < w; c += 32) sum += x[i * w + c] * x[i * w + c];
    sum = warpSum(sum);
    if (lane == 0) out[i] = sum;
  }
}

// raw[i][j], the dot product q_i . n_j, becomes the distance sqrt(|q_i|^2 + |n_j|^2 - 2 q_i . n_j + eps).
__global__ void distancesFromDotsKernel(KgeChunkArgs k, const float* qNorm, const float* nNorm, float* raw) {
  const int64_t C = k.chunk, K = k.negatives;
  WM_GRID_STRIDE(t, k.rows * K) {
    const int64_t i = t / K, j = t % K;
    raw[t] = kge::finish<KgeScorer::L2>(fmaxf(qNorm[i] + nNorm[(i / C) * K + j] - 2.f * raw[t], 0.f));
  }
}

// The L2 gradients' other half: out[o] += (sum of the o-th row's coefficients, or with kQuery false of the
// o-th negative's column over its group's positives, in order) times x[o]. A warp per row of out.
template <bool kQuery>
__global__ void addCoefficientSumsKernel(KgeChunkArgs k, const float* coef, const float* x, float* out) {
  const int lane = threadIdx.x % 32;
  const int64_t C = k.chunk, K = k.negatives, w = k.width, rows = kQuery ? k.rows : k.groups() * K;
  const int64_t warps = static_cast<int64_t>(gridDim.x) * (blockDim.x / 32);
  for (int64_t o = blockIdx.x * static_cast<int64_t>(blockDim.x / 32) + threadIdx.x / 32; o < rows; o += warps) {
    const int64_t count = kQuery ? K : C, stride = kQuery ? 1 : K, base = kQuery ? o * K : (o / K) * C * K + o % K;
    float sum = 0.f;
    for (int64_t l = lane; l < count; l += 32) sum += coef[base + l * stride];
    sum = warpSum(sum);
    for (int64_t c = lane; c < w; c += 32) out[o * w + c] += sum * x[o * w + c];
  }
}

// cuBLAS bound to the current stream when the groups' scores are products it should take (the dot
// scorer, and L2 through |q - n|^2 = |q|^2 + |n|^2 - 2 q . n), else nullptr.
Cublas* productsOnCublas(const KgeChunkArgs& k) {
  const int64_t G = k.groups(), K = k.negatives, C = k.chunk, w = k.width;
  if ((k.scorer != KgeScorer::Dot && k.scorer != KgeScorer::L2) || w < 1 || C < kStep || K < kStep || G > INT_MAX || C > INT_MAX ||
      K > INT_MAX || w > INT_MAX)
    return nullptr;
  Cublas* cb = cublas();
  if (cb) WM_REQUIRE(cb->setStream(cb->handle, stream()) == 0, "kgeChunkLoss: cublasSetStream failed");
  return cb;
}

template <KgeScorer S>
void run(const KgeChunkArgs& k, const float* q, const float* own, const float* neg, float* loss, float* dq, float* dOwn, float* dNeg) {
  const int64_t G = k.groups(), K = k.negatives, C = k.chunk, coords = k.coords(), w = k.width;
  Scratch scratch;
  float* coef = scratch.get<float>(k.rows * K);
  const unsigned groups = static_cast<unsigned>(std::min<int64_t>(G, 65535));
  const bool tiled = C >= kStep && K >= kStep;
  auto blocksOf = [](int64_t n, int64_t tile) { return static_cast<unsigned>((n + tile - 1) / tile); };
  WM_REQUIRE((C + kTile - 1) / kTile <= 65535, "kgeChunkLoss: chunks of more than 2,097,120 positives");
  // Row-major X [r, c] is column-major X^T: a group's raw^T [K, C] = N [K, w] Q^T [w, C].
  Cublas* cb = productsOnCublas(k);
  if (cb) {
    stridedGemm(cb, true, false, K, C, w, 1.f, neg, w, K * w, q, w, C * w, 0.f, coef, K, C * K, G, "kgeChunkLoss");
    if (S == KgeScorer::L2) {
      float* qNorm = scratch.get<float>(k.rows);
      float* nNorm = scratch.get<float>(G * K);
      squaredNormsKernel<<<warpBlocks(k.rows), kThreads, 0, stream()>>>(q, k.rows, w, qNorm);
      WM_CUDA_LAUNCHED();
      squaredNormsKernel<<<warpBlocks(G * K), kThreads, 0, stream()>>>(neg, G * K, w, nNorm);
      WM_CUDA_LAUNCHED();
      distancesFromDotsKernel<<<gridFor(k.rows * K), kThreads, 0, stream()>>>(k, qNorm, nNorm, coef);
    }
  } else if (tiled) {
    rawTiledKernel<S><<<dim3(blocksOf(K, kBig), blocksOf(C, kBig), groups), dim3(16, 16), 0, stream()>>>(k, q, neg, coef);
  } else {
    rawKernel<S><<<dim3(blocksOf(K, kTile), blocksOf(C, kTile), groups), dim3(kTile, 8), 0, stream()>>>(k, q, neg, coef);
  }
  WM_CUDA_LAUNCHED();
  rowKernel<S><<<warpBlocks(k.rows), kThreads, 0, stream()>>>(k, q, own, coef, loss, dq, dOwn);
  WM_CUDA_LAUNCHED();
  if (cb) {
    // dq^T [w, C] += N^T [w, K] coef^T [K, C]; dNeg^T [w, K] = Q^T [w, C] coef [C, K]. For L2, d term / d q is
    // q - n: dq_i += (sum_j G_ij) q_i - sum_j G_ij n_j, and dNeg_j = (sum_i G_ij) n_j - sum_i G_ij q_i.
    const float sign = S == KgeScorer::L2 ? -1.f : 1.f;
    stridedGemm(cb, false, false, w, C, K, sign, neg, w, K * w, coef, K, C * K, 1.f, dq, w, C * w, G, "kgeChunkLoss");
    stridedGemm(cb, false, true, w, K, C, sign, q, w, C * w, coef, K, C * K, 0.f, dNeg, w, K * w, G, "kgeChunkLoss");
    if (S == KgeScorer::L2) {
      addCoefficientSumsKernel<true><<<warpBlocks(k.rows), kThreads, 0, stream()>>>(k, coef, q, dq);
      WM_CUDA_LAUNCHED();
      addCoefficientSumsKernel<false><<<warpBlocks(G * K), kThreads, 0, stream()>>>(k, coef, neg, dNeg);
      WM_CUDA_LAUNCHED();
    }
  } else if (coords > 0 && tiled) {
    // Each side's outputs in 64 x 64 blocks; where they make fewer blocks than the GPU keeps busy, the summed
    // axis is cut into runs (whole kSteps) summed after, in order.
    auto side = [&](auto kernel, int64_t rows, int64_t along, float* out, bool add) {
      const int64_t blocks = blocksOf(coords, kBig) * blocksOf(rows, kBig) * G;
      const int64_t want = std::min<int64_t>((kBusyBlocks + blocks - 1) / blocks, (along + kStep - 1) / kStep);
      const int slices = static_cast<int>(std::max<int64_t>(want, 1));
      const int64_t span = ((along + slices - 1) / slices + kStep - 1) / kStep * kStep;
      const int64_t stride = G * rows * w;
      float* parts = slices > 1 ? scratch.get<float>(slices * stride) : out;
      const unsigned z = static_cast<unsigned>(std::min<int64_t>(G * slices, 65535));
      kernel<<<dim3(blocksOf(coords, kBig), blocksOf(rows, kBig), z), dim3(16, 16), 0, stream()>>>(k, q, neg, coef, parts, slices, span,
                                                                                                   stride);
      WM_CUDA_LAUNCHED();
      if (slices > 1) {
        sumPartsKernel<<<gridFor(stride), kThreads, 0, stream()>>>(parts, slices, stride, stride, add, out);
        WM_CUDA_LAUNCHED();
      }
    };
    side(gradTiledKernel<S, true>, C, K, dq, true);
    side(gradTiledKernel<S, false>, K, C, dNeg, false);
  } else if (coords > 0) {
    queryGradKernel<S><<<gridFor(k.rows * coords), kThreads, 0, stream()>>>(k, q, neg, coef, dq);
    WM_CUDA_LAUNCHED();
    negativeGradKernel<S><<<gridFor(G * K * coords), kThreads, 0, stream()>>>(k, q, neg, coef, dNeg);
    WM_CUDA_LAUNCHED();
  }
}

}  // namespace

void kgeChunkLoss(const KgeChunkArgs& k, uint64_t q, uint64_t own, uint64_t neg, uint64_t loss, uint64_t dq, uint64_t dOwn, uint64_t dNeg) {
  if (k.rows == 0) return;
  const float *pq = as<float>(q), *po = as<float>(own), *pn = as<float>(neg);
  float *pl = as<float>(loss), *pdq = as<float>(dq), *pdo = as<float>(dOwn), *pdn = as<float>(dNeg);
  switch (k.scorer) {
    case KgeScorer::Dot:
      return run<KgeScorer::Dot>(k, pq, po, pn, pl, pdq, pdo, pdn);
    case KgeScorer::L1:
      return run<KgeScorer::L1>(k, pq, po, pn, pl, pdq, pdo, pdn);
    case KgeScorer::L2:
      return run<KgeScorer::L2>(k, pq, po, pn, pl, pdq, pdo, pdn);
    case KgeScorer::Complex:
      return run<KgeScorer::Complex>(k, pq, po, pn, pl, pdq, pdo, pdn);
  }
}

}  // namespace wm

// kgeChunkLoss(scorer, lossKind, rows, chunk, negatives, width, margin, temperature, lossMargin, weight, q, own, neg, loss, dq, dOwn,
// dNeg)
WM_OP(kgeChunkLoss, Device, a) {
  const wm::KgeChunkArgs k = wm::kgeChunkArgs(a);
  wm::kgeChunkLoss(k, a.address(10, "q"), a.address(11, "own"), a.address(12, "neg"), a.address(13, "loss"), a.address(14, "dq"),
                   a.address(15, "dOwn"), a.address(16, "dNeg"));
}
