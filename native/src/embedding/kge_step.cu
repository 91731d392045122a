// The KGE step on the GPU: a thread per coordinate composes the queries, kgeChunkLoss scores them and makes
// the queries', own candidates' and negatives' gradients (written into their places in dRows), and a thread
// per coordinate carries the queries' back to the fixed rows and the relations.
#include "embedding/kge_step.h"
#include "runtime/launch.cuh"
#include "runtime/scratch.cuh"
#include "wm/op_registry.h"
#include "wm/runtime.h"

namespace wm {
namespace {

__global__ void composeKernel(KgeStepArgs s, const float* fixed, const float* relation, float* q) {
  const int64_t coords = s.coords(), w = s.chunk.width, rw = s.relationWidth();
  WM_GRID_STRIDE(t, s.chunk.rows * coords) {
    const int64_t i = t / coords;
    kge::compose(s, fixed + i * w, relation + i * rw, t % coords, q + i * w);
  }
}

__global__ void composeGradKernel(KgeStepArgs s, const float* fixed, const float* relation, const float* dq, float* dFixed,
                                  float* dRelation) {
  const int64_t coords = s.coords(), w = s.chunk.width, rw = s.relationWidth();
  WM_GRID_STRIDE(t, s.chunk.rows * coords) {
    const int64_t i = t / coords;
    kge::composeGrad(s, fixed + i * w, relation + i * rw, dq + i * w, t % coords, dFixed + i * w, dRelation + i * rw);
  }
}

}  // namespace

void kgeStep(const KgeStepArgs& s, uint64_t rows, uint64_t relation, uint64_t loss, uint64_t dRows, uint64_t dRelation) {
  const int64_t b = s.chunk.rows, w = s.chunk.width, n = b * s.coords();
  if (b == 0) return;
  const float* in = as<float>(rows);
  float* out = as<float>(dRows);
  const int64_t fixedAt = s.head ? b * w : 0, ownAt = s.head ? 0 : b * w;
  Scratch scratch;
  float* q = scratch.get<float>(b * w);
  float* dq = scratch.get<float>(b * w);
  composeKernel<<<gridFor(n), kThreads, 0, stream()>>>(s, in + fixedAt, as<float>(relation), q);
  WM_CUDA_LAUNCHED();
  kgeChunkLoss(s.chunk, reinterpret_cast<uint64_t>(q), reinterpret_cast<uint64_t>(in + ownAt), reinterpret_cast<uint64_t>(in + 2 * b * w),
               loss, reinterpret_cast<uint64_t>(dq), reinterpret_cast<uint64_t>(out + ownAt), reinterpret_cast<uint64_t>(out + 2 * b * w));
  composeGradKernel<<<gridFor(n), kThreads, 0, stream()>>>(s, in + fixedAt, as<float>(relation), dq, out + fixedAt, as<float>(dRelation));
  WM_CUDA_LAUNCHED();
}

}  // namespace wm

// kgeStep(scorer, lossKind, positives, chunk, negatives, width, margin, temperature, lossMargin, weight, compose, head, scale, rows,
// relation, loss, dRows, dRelation)
WM_OP(kgeStep, Device, a) {
  const wm::KgeStepArgs s = wm::kgeStepArgs(a);
  wm::kgeStep(s, a.address(13, "rows"), a.address(14, "relation"), a.address(15, "loss"), a.address(16, "dRows"),
              a.address(17, "dRelation"));
}
