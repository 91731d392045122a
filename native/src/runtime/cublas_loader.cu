#include <dlfcn.h>

#include <cstdlib>
#include <mutex>
#include <string>

#include "runtime/check.h"
#include "runtime/cublas_loader.h"
#include "runtime/library_path.h"

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

}  // namespace wm
