// The few CUDA driver-API calls we use (virtual memory management), reached
// through cudaGetDriverEntryPointByVersion so the addon never links libcuda
// and still loads on machines without a driver.
#pragma once
#include <cuda.h>
#include <cudaTypedefs.h>

#include <string>

namespace wm {

struct DriverApi {
  PFN_cuMemCreate_v10020 memCreate;
  PFN_cuMemRelease_v10020 memRelease;
  PFN_cuMemExportToShareableHandle_v10020 memExport;
  PFN_cuMemImportFromShareableHandle_v10020 memImport;
  PFN_cuMemAddressReserve_v10020 addressReserve;
  PFN_cuMemAddressFree_v10020 addressFree;
  PFN_cuMemMap_v10020 memMap;
  PFN_cuMemUnmap_v10020 memUnmap;
  PFN_cuMemSetAccess_v10020 setAccess;
  PFN_cuMemGetAllocationGranularity_v10020 granularity;
  PFN_cuGetErrorString_v6000 errorString;
};

// Loaded on first use; throws wm::Error if the driver lacks a call.
const DriverApi& driver();

}  // namespace wm

#define WM_CU(call)                                                                                                                      \
  do {                                                                                                                                   \
    CUresult wm_r_ = (call);                                                                                                             \
    if (wm_r_ != CUDA_SUCCESS) {                                                                                                         \
      const char* wm_s_ = nullptr;                                                                                                       \
      ::wm::driver().errorString(wm_r_, &wm_s_);                                                                                         \
      ::wm::fail(std::string(#call) + " failed: " + (wm_s_ ? wm_s_ : "unknown error") + " (" + std::to_string(static_cast<int>(wm_r_)) + \
                 ") at " + __FILE__ + ":" + std::to_string(__LINE__));                                                                   \
    }                                                                                                                                    \
  } while (0)
