#include <dlfcn.h>

#include <cstdlib>
#include <mutex>
#include <string>

#include "runtime/check.h"
#include "runtime/cublas_loader.h"
#include "runtime/library_path.h"
#include "wm/matmul_precision.h"

namespace wm {

Cublas* cublas() {
  static std::once_flag once;
  static Cublas* loaded = nullptr;
  std::call_once(once, [] {
    const char* off = std::getenv("WM_NO_CUBLAS");
    if (off && std::string(off) == "1") return;
    const char* names[] = {"libcublas.so.13",
                           "libcublas.so.12",
                           "libcublas.so",
                           "/usr/local/cuda/lib64/libcublas.so.13",
                           "/usr/local/cuda/lib64/libcublas.so.12",
                           "/usr/local/cuda/lib64/libcublas.so"};
    void* lib = nullptr;
    for (const char* n : names)
      if ((lib = dlopen(n, RTLD_NOW | RTLD_LOCAL)) != nullptr) break;
    if (!lib) return;
    auto* c = new Cublas();
    c->path = libraryPath(lib);
    c->create = reinterpret_cast<decltype(c->create)>(dlsym(lib, "cublasCreate_v2"));
    c->setStream = reinterpret_cast<decltype(c->setStream)>(dlsym(lib, "cublasSetStream_v2"));
    c->sgemmStridedBatched = reinterpret_cast<decltype(c->sgemmStridedBatched)>(dlsym(lib, "cublasSgemmStridedBatched"));
    c->gemmStridedBatchedEx = reinterpret_cast<decltype(c->gemmStridedBatchedEx)>(dlsym(lib, "cublasGemmStridedBatchedEx"));
    if (!c->create || !c->setStream || !c->sgemmStridedBatched || c->create(&c->handle) != 0 || c->setStream(c->handle, stream()) != 0) {
      delete c;
      return;
    }
    // No workspace of ours: batchMatMul binds the handle to the current stream on every call, and
    // cublasSetStream puts cuBLAS back on its own workspace pool each time.
    loaded = c;
  });
  return loaded;
}

namespace {

// The cuBLAS compute type of float32 products on the tensor cores the matmul precision allows, or 0 for none.
int tensorCoreCompute(const Cublas* cb) {
  if (!cb || !cb->gemmStridedBatchedEx) return 0;
  switch (matmulPrecision()) {
    case MatmulPrecision::High:
      return kCublasCompute32FFastTF32;
    case MatmulPrecision::Medium:
      return kCublasCompute32FFast16BF;
    default:
      return 0;
  }
}

}  // namespace

bool cublasTensorCores(const Cublas* cb) { return tensorCoreCompute(cb) != 0; }

void stridedGemm(Cublas* cb, bool transA, bool transB, int64_t m, int64_t n, int64_t k, float alpha, const float* A, int64_t lda,
                 int64_t strideA, const float* B, int64_t ldb, int64_t strideB, float beta, float* C, int64_t ldc, int64_t strideC,
                 int64_t batch, const char* what) {
  const int opA = transA ? kCublasOpT : kCublasOpN, opB = transB ? kCublasOpT : kCublasOpN;
  const int im = static_cast<int>(m), in = static_cast<int>(n), ik = static_cast<int>(k), ib = static_cast<int>(batch);
  int st;
  if (const int compute = tensorCoreCompute(cb)) {
    // float32 in and out, float32 sums; the inputs rounded to TF32 or bfloat16 on their way into the tensor cores.
    st = cb->gemmStridedBatchedEx(cb->handle, opA, opB, im, in, ik, &alpha, A, kCudaR32F, static_cast<int>(lda), strideA, B, kCudaR32F,
                                  static_cast<int>(ldb), strideB, &beta, C, kCudaR32F, static_cast<int>(ldc), strideC, ib, compute,
                                  kCublasGemmDefault);
    WM_REQUIRE(st == 0, std::string(what) + ": cublasGemmStridedBatchedEx failed with status " + std::to_string(st));
    return;
  }
  st = cb->sgemmStridedBatched(cb->handle, opA, opB, im, in, ik, &alpha, A, static_cast<int>(lda), strideA, B, static_cast<int>(ldb),
                               strideB, &beta, C, static_cast<int>(ldc), strideC, ib);
  WM_REQUIRE(st == 0, std::string(what) + ": cublasSgemmStridedBatched failed with status " + std::to_string(st));
}

}  // namespace wm
