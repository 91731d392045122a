// Host arrays in native memory as JavaScript sees them: a HostArray object
// holding pages (anonymous memory or a mapped file) shared with every typed
// array viewing them, so the pages live while either does. Shared by the
// bindings that make them (text columns, mapped files) and those that take
// them (graphs built from edge columns).
#pragma once
#include <napi.h>

#include <memory>
#include <string>

#include "wm/page_array.h"

namespace wmnapi {

// A typed array of `length` elements of `dtype` ("uint8", "float16" as its bits, "int32", "int64", "float32", "float64") viewing `pages`
// from element `first` without a copy; `pages` stay alive while the view does. At most 4 GiB.
Napi::Value viewPages(Napi::Env env, std::shared_ptr<const wm::host::PageArray> pages, const std::string& dtype, int64_t length,
                      int64_t first = 0);

// A new HostArray object over `pages`.
Napi::Value wrapHostArray(Napi::Env env, wm::host::PageArray&& pages, const std::string& dtype, int64_t length);

// The pages of a HostArray argument, taken from it (the object is empty afterwards): moved when no
// typed array views them, copied otherwise. Throws naming `what` when v is not a HostArray of dtype.
wm::host::PageArray takeHostArray(const Napi::Value& v, const std::string& dtype, const std::string& what, int64_t* length);

}  // namespace wmnapi
