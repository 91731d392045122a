// N-API bindings of shared buffers (wm/shared_buffer.h).
#include <napi.h>
#include <unistd.h>

#include <string>

#include "napi_util.h"
#include "wm/shared_buffer.h"

namespace {

using wmnapi::guarded;

std::string toHex(const std::string& bytes) {
  static const char* digits = "0123456789abcdef";
  std::string out;
  for (unsigned char c : bytes) {
    out.push_back(digits[c >> 4]);
    out.push_back(digits[c & 15]);
  }
  return out;
}

std::string fromHex(const Napi::Env& env, const std::string& hex) {
  auto val = [&](char c) -> int {
    if (c >= '0' && c <= '9') return c - '0';
    if (c >= 'a' && c <= 'f') return c - 'a' + 10;
    throw Napi::TypeError::New(env, "open: ipcHandle must be a hex string");
  };
  if (hex.size() % 2) throw Napi::TypeError::New(env, "open: ipcHandle must be a hex string");
  std::string out;
  for (size_t i = 0; i < hex.size(); i += 2) out.push_back(static_cast<char>(val(hex[i]) * 16 + val(hex[i + 1])));
  return out;
}

uint64_t ptrArg(const Napi::Value& v) { return static_cast<uint64_t>(v.As<Napi::Number>().DoubleValue()); }

// sharedDeviceAlloc(bytes) -> {ptr, handle (hex)}
Napi::Value DeviceAlloc(const Napi::CallbackInfo& info) {
  return guarded(info.Env(), [&]() -> Napi::Value {
    std::string handle;
    uint64_t ptr = wm::sharedDeviceAlloc(static_cast<size_t>(info[0].As<Napi::Number>().Int64Value()), &handle);
    auto out = Napi::Object::New(info.Env());
    out.Set("ptr", Napi::Number::New(info.Env(), static_cast<double>(ptr)));
    out.Set("handle", Napi::String::New(info.Env(), toHex(handle)));
    return out;
  });
}

Napi::Value DeviceFree(const Napi::CallbackInfo& info) {
  return guarded(info.Env(), [&]() -> Napi::Value {
    wm::sharedDeviceFree(ptrArg(info[0]));
    return info.Env().Undefined();
  });
}

Napi::Value DeviceOpen(const Napi::CallbackInfo& info) {
  return guarded(info.Env(), [&]() -> Napi::Value {
    return Napi::Number::New(info.Env(), static_cast<double>(wm::sharedDeviceOpen(fromHex(info.Env(), info[0].As<Napi::String>()))));
  });
}

Napi::Value DeviceClose(const Napi::CallbackInfo& info) {
  return guarded(info.Env(), [&]() -> Napi::Value {
    wm::sharedDeviceClose(ptrArg(info[0]));
    return info.Env().Undefined();
  });
}

// sharedHostCreate(bytes) -> {fd, inode}
Napi::Value HostCreate(const Napi::CallbackInfo& info) {
  return guarded(info.Env(), [&]() -> Napi::Value {
    wm::HostSegment seg = wm::sharedHostCreate(static_cast<size_t>(info[0].As<Napi::Number>().Int64Value()));
    auto out = Napi::Object::New(info.Env());
    out.Set("fd", Napi::Number::New(info.Env(), seg.fd));
    out.Set("inode", Napi::Number::New(info.Env(), static_cast<double>(seg.inode)));
    return out;
  });
}

// sharedHostMap(fd | path, bytes, writable, inode?) -> ArrayBuffer over the segment,
// unmapped when the ArrayBuffer is collected. Read-only maps are copy-on-write.
Napi::Value HostMap(const Napi::CallbackInfo& info) {
  return guarded(info.Env(), [&]() -> Napi::Value {
    size_t bytes = static_cast<size_t>(info[1].As<Napi::Number>().Int64Value());
    bool writable = info[2].ToBoolean();
    int fd = -1;
    bool ownFd = false;
    if (info[0].IsString()) {
      fd = wm::sharedHostOpen(info[0].As<Napi::String>(), static_cast<uint64_t>(info[3].As<Napi::Number>().DoubleValue()), writable);
      ownFd = true;
    } else {
      fd = info[0].As<Napi::Number>().Int32Value();
    }
    void* p = nullptr;
    try {
      p = wm::sharedHostMap(fd, bytes, writable);
    } catch (...) {
      if (ownFd) ::close(fd);
      throw;
    }
    if (ownFd) ::close(fd);
    if (!p) return Napi::ArrayBuffer::New(info.Env(), 0);
    return Napi::ArrayBuffer::New(info.Env(), p, bytes, [](Napi::Env, void* data, size_t* n) {
      wm::sharedHostUnmap(data, *n);
      delete n;
    }, new size_t(bytes));
  });
}

Napi::Value CloseFd(const Napi::CallbackInfo& info) {
  ::close(info[0].As<Napi::Number>().Int32Value());
  return info.Env().Undefined();
}

}  // namespace

void InitShare(Napi::Env env, Napi::Object exports) {
  exports.Set("sharedDeviceAlloc", Napi::Function::New(env, DeviceAlloc, "sharedDeviceAlloc"));
  exports.Set("sharedDeviceFree", Napi::Function::New(env, DeviceFree, "sharedDeviceFree"));
  exports.Set("sharedDeviceOpen", Napi::Function::New(env, DeviceOpen, "sharedDeviceOpen"));
  exports.Set("sharedDeviceClose", Napi::Function::New(env, DeviceClose, "sharedDeviceClose"));
  exports.Set("sharedHostCreate", Napi::Function::New(env, HostCreate, "sharedHostCreate"));
  exports.Set("sharedHostMap", Napi::Function::New(env, HostMap, "sharedHostMap"));
  exports.Set("closeFd", Napi::Function::New(env, CloseFd, "closeFd"));
}
