// NCCL, loaded at run time: the addon never links it, so it loads on machines
// without NCCL (or without a GPU) and uses NCCL only where it is installed.
// The prototypes are ours (no nccl.h here); they follow NCCL's stable C ABI.
#pragma once
#include <cstddef>
#include <string>

#include <cuda_runtime.h>

namespace wm {

using ncclComm_t = struct ncclComm*;
using ncclResult_t = int;
constexpr ncclResult_t kNcclSuccess = 0, kNcclInProgress = 7;
enum NcclType : int { kNcclUint8 = 1, kNcclInt32 = 2, kNcclFloat16 = 6, kNcclFloat32 = 7, kNcclBfloat16 = 9 };
enum NcclOp : int { kNcclSum = 0, kNcclAvg = 4 };
struct NcclUniqueId {
  char internal[128];
};
// The 2.17 layout of ncclConfig_t; later NCCLs read `size` bytes of it.
struct NcclConfig {
  size_t size = sizeof(NcclConfig);
  unsigned magic = 0xcafebeef;
  unsigned version = 21700;
  int blocking = -2147483648, cgaClusterSize = -2147483648, minCTAs = -2147483648, maxCTAs = -2147483648;
  const char* netName = nullptr;
  int splitShare = -2147483648;
};

struct NcclApi {
  ncclResult_t (*getVersion)(int*);
  const char* (*getErrorString)(ncclResult_t);
  const char* (*getLastError)(ncclComm_t);
  ncclResult_t (*getUniqueId)(NcclUniqueId*);
  ncclResult_t (*commInitRankConfig)(ncclComm_t*, int, NcclUniqueId, int, NcclConfig*);
  ncclResult_t (*commGetAsyncError)(ncclComm_t, ncclResult_t*);
  ncclResult_t (*commFinalize)(ncclComm_t);
  ncclResult_t (*commDestroy)(ncclComm_t);
  ncclResult_t (*commAbort)(ncclComm_t);
  ncclResult_t (*groupStart)();
  ncclResult_t (*groupEnd)();
  ncclResult_t (*send)(const void*, size_t, int, int, ncclComm_t, cudaStream_t);
  ncclResult_t (*recv)(void*, size_t, int, int, ncclComm_t, cudaStream_t);
  ncclResult_t (*allReduce)(const void*, void*, size_t, int, int, ncclComm_t, cudaStream_t);
  int version = 0;
  std::string path;  // the file it was loaded from
};

// The loaded library, or nullptr (then ncclUnavailableReason() says why).
// WM_NCCL_LIBRARY names the file to load; the default is libnccl.so.2.
const NcclApi* ncclApi();
std::string ncclUnavailableReason();

}  // namespace wm
