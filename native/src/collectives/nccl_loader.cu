#include "collectives/nccl_loader.h"
#include "wm/cuda_setup.h"

#include "runtime/library_path.h"

#include <dlfcn.h>

#include <cstdlib>
#include <mutex>

namespace wm {
namespace {

std::string reason = "not loaded yet";

template <typename F>
bool bind(void* lib, const char* name, F& fn) {
  fn = reinterpret_cast<F>(dlsym(lib, name));
  if (!fn) reason = std::string("the NCCL library lacks ") + name;
  return fn != nullptr;
}

}  // namespace

const NcclApi* ncclApi() {
  static std::once_flag once;
  static NcclApi* loaded = nullptr;
  std::call_once(once, [] {
    const char* env = std::getenv("WM_NCCL_LIBRARY");
    const char* names[] = {env, "libnccl.so.2", "/usr/lib/x86_64-linux-gnu/libnccl.so.2", "libnccl.so"};
    void* lib = nullptr;
    for (const char* n : names) {
      if (!n || !*n) continue;
      if ((lib = dlopen(n, RTLD_NOW | RTLD_LOCAL)) != nullptr) break;
      if (n == env) break;  // an explicit choice is not second-guessed
    }
    if (!lib) {
      const char* e = dlerror();
      reason = std::string("libnccl.so.2 could not be loaded") + (e ? std::string(": ") + e : "");
      return;
    }
    auto* a = new NcclApi();
    a->path = libraryPath(lib);
    bool ok = bind(lib, "ncclGetVersion", a->getVersion) && bind(lib, "ncclGetErrorString", a->getErrorString) &&
              bind(lib, "ncclGetLastError", a->getLastError) && bind(lib, "ncclGetUniqueId", a->getUniqueId) &&
              bind(lib, "ncclCommInitRankConfig", a->commInitRankConfig) && bind(lib, "ncclCommGetAsyncError", a->commGetAsyncError) &&
              bind(lib, "ncclCommFinalize", a->commFinalize) && bind(lib, "ncclCommDestroy", a->commDestroy) &&
              bind(lib, "ncclCommAbort", a->commAbort) && bind(lib, "ncclGroupStart", a->groupStart) &&
              bind(lib, "ncclGroupEnd", a->groupEnd) && bind(lib, "ncclSend", a->send) && bind(lib, "ncclRecv", a->recv) &&
              bind(lib, "ncclAllReduce", a->allReduce);
    if (!ok || a->getVersion(&a->version) != kNcclSuccess) {
      delete a;
      return;
    }
    // NCCL 2.17 brought the config struct and non-blocking communicators.
    if (a->version < 21700) {
      reason = "NCCL " + std::to_string(a->version) + " is older than 2.17";
      delete a;
      return;
    }
    loaded = a;
    reason.clear();
  });
  return loaded;
}

std::string ncclUnavailableReason() {
  ncclApi();
  return reason;
}

std::string ncclLocation() {
  const NcclApi* a = ncclApi();
  return a ? a->path : "";
}

}  // namespace wm
