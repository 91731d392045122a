#include "runtime/driver_api.h"

#include <mutex>

#include "runtime/check.h"

namespace wm {

const DriverApi& driver() {
  static DriverApi api{};
  static std::once_flag once;
  static std::string error;
  std::call_once(once, [] {
    auto load = [](const char* name, auto& fn) {
      void* p = nullptr;
      cudaDriverEntryPointQueryResult status;
      cudaError_t e = cudaGetDriverEntryPointByVersion(name, &p, 12000, cudaEnableDefault, &status);
      if (e != cudaSuccess || status != cudaDriverEntryPointSuccess || !p) {
        if (error.empty()) error = std::string("the CUDA driver does not provide ") + name;
        return;
      }
      fn = reinterpret_cast<std::remove_reference_t<decltype(fn)>>(p);
    };
    load("cuMemCreate", api.memCreate);
    load("cuMemRelease", api.memRelease);
    load("cuMemExportToShareableHandle", api.memExport);
    load("cuMemImportFromShareableHandle", api.memImport);
    load("cuMemAddressReserve", api.addressReserve);
    load("cuMemAddressFree", api.addressFree);
    load("cuMemMap", api.memMap);
    load("cuMemUnmap", api.memUnmap);
    load("cuMemSetAccess", api.setAccess);
    load("cuMemGetAllocationGranularity", api.granularity);
    load("cuGetErrorString", api.errorString);
  });
  if (!error.empty()) fail(error);
  return api;
}

}  // namespace wm
