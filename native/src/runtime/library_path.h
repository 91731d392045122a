// The file a dlopen handle came from, so a report can say which cuBLAS or NCCL
// this process uses when several are installed.
#pragma once
#include <dlfcn.h>
#include <link.h>

#include <string>

namespace wm {

inline std::string libraryPath(void* handle) {
  struct link_map* map = nullptr;
  if (handle == nullptr || dlinfo(handle, RTLD_DI_LINKMAP, &map) != 0 || map == nullptr || map->l_name == nullptr) return "";
  return map->l_name;
}

}  // namespace wm
