// N-API bindings of shared buffers (wm/shared_buffer.h).
#include <napi.h>
#include <climits>
#include <sys/resource.h>
#include <sys/socket.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>

#include <string>

#include "napi_args.h"
#include "wm/hmac_sha256.h"
#include "wm/shared_buffer.h"
#include "wm/status.h"

namespace {

using wmnapi::Args;
using wmnapi::guarded;

int fdArg(const Args& a, size_t i) {
  const int64_t fd = a.count(i, "fd");
  if (fd > INT32_MAX) a.reject(i, "fd", "is not a descriptor");
  return static_cast<int>(fd);
}

// sharedDeviceAlloc(bytes) -> {ptr, handle (hex)}
Napi::Value DeviceAlloc(const Napi::CallbackInfo& info) {
  return guarded(info.Env(), [&]() -> Napi::Value {
    std::string handle;
    uint64_t ptr = wm::sharedDeviceAlloc(static_cast<size_t>(Args(info, "sharedDeviceAlloc").count(0, "bytes")), &handle);
    auto out = Napi::Object::New(info.Env());
    out.Set("ptr", Napi::Number::New(info.Env(), static_cast<double>(ptr)));
    out.Set("handle", Napi::String::New(info.Env(), wm::auth::toHex(handle)));
    return out;
  });
}

Napi::Value DeviceFree(const Napi::CallbackInfo& info) {
  return guarded(info.Env(), [&]() -> Napi::Value {
    wm::sharedDeviceFree(Args(info, "sharedDeviceFree").address(0, "ptr"));
    return info.Env().Undefined();
  });
}

Napi::Value DeviceOpen(const Napi::CallbackInfo& info) {
  return guarded(info.Env(), [&]() -> Napi::Value {
    return Napi::Number::New(info.Env(), static_cast<double>(wm::sharedDeviceOpen(
                                             wm::auth::fromHex(Args(info, "sharedDeviceOpen").string(0, "handle"), "open: ipcHandle"))));
  });
}

Napi::Value DeviceClose(const Napi::CallbackInfo& info) {
  return guarded(info.Env(), [&]() -> Napi::Value {
    wm::sharedDeviceClose(Args(info, "sharedDeviceClose").address(0, "ptr"));
    return info.Env().Undefined();
  });
}

// sharedHostCreate(bytes) -> {fd, inode}
Napi::Value HostCreate(const Napi::CallbackInfo& info) {
  return guarded(info.Env(), [&]() -> Napi::Value {
    wm::HostSegment seg = wm::sharedHostCreate(static_cast<size_t>(Args(info, "sharedHostCreate").count(0, "bytes")));
    auto out = Napi::Object::New(info.Env());
    out.Set("fd", Napi::Number::New(info.Env(), seg.fd));
    out.Set("inode", Napi::Number::New(info.Env(), static_cast<double>(seg.inode)));
    return out;
  });
}

// A segment named by our own descriptor, or by a /proc path and inode (opened
// here, closed when this goes out of scope).
struct SegmentRef {
  int fd = -1;
  bool own = false;
  SegmentRef(const Args& a, size_t fdOrPath, size_t inode, bool forWrite) {
    if (a[fdOrPath].IsString()) {
      fd = wm::sharedHostOpen(a.string(fdOrPath, "path"), static_cast<uint64_t>(a.count(inode, "inode")), forWrite);
      own = true;
    } else {
      fd = fdArg(a, fdOrPath);
    }
  }
  ~SegmentRef() {
    if (own) ::close(fd);
  }
};

// sharedHostMap(fd | path, bytes, inode?) -> ArrayBuffer over the segment
// (copy-on-write), unmapped when the ArrayBuffer is collected.
Napi::Value HostMap(const Napi::CallbackInfo& info) {
  return guarded(info.Env(), [&]() -> Napi::Value {
    Args a(info, "sharedHostMap");
    size_t bytes = static_cast<size_t>(a.count(1, "bytes"));
    SegmentRef seg(a, 0, 2, false);
    void* p = wm::sharedHostMap(seg.fd, bytes);
    if (!p) return Napi::ArrayBuffer::New(info.Env(), 0);
    return Napi::ArrayBuffer::New(
        info.Env(), p, bytes,
        [](Napi::Env, void* data, size_t* n) {
          wm::sharedHostUnmap(data, *n);
          delete n;
        },
        new size_t(bytes));
  });
}

// sharedHostState(fd | path, inode?) -> {bytes, writeSealed}
Napi::Value HostState(const Napi::CallbackInfo& info) {
  return guarded(info.Env(), [&]() -> Napi::Value {
    SegmentRef seg(Args(info, "sharedHostState"), 0, 1, false);
    wm::SegmentState st = wm::sharedHostState(seg.fd);
    auto out = Napi::Object::New(info.Env());
    out.Set("bytes", Napi::Number::New(info.Env(), static_cast<double>(st.bytes)));
    out.Set("writeSealed", Napi::Boolean::New(info.Env(), st.writeSealed));
    return out;
  });
}

// sharedHostWrite(fd | path, inode | undefined, byteOffset, data: TypedArray)
Napi::Value HostWrite(const Napi::CallbackInfo& info) {
  return guarded(info.Env(), [&]() -> Napi::Value {
    Args a(info, "sharedHostWrite");
    SegmentRef seg(a, 0, 1, true);
    auto data = a.typed(3, "data");
    wm::sharedHostWrite(seg.fd, static_cast<uint64_t>(a.count(2, "byteOffset")), wmnapi::typedBytes(data), data.ByteLength());
    return info.Env().Undefined();
  });
}

Napi::Value HostSealWrites(const Napi::CallbackInfo& info) {
  return guarded(info.Env(), [&]() -> Napi::Value {
    wm::sharedHostSealWrites(fdArg(Args(info, "sharedHostSealWrites"), 0));
    return info.Env().Undefined();
  });
}

Napi::Value CloseFd(const Napi::CallbackInfo& info) {
  return guarded(info.Env(), [&]() -> Napi::Value {
    ::close(fdArg(Args(info, "closeFd"), 0));
    return info.Env().Undefined();
  });
}

// socketPeer(fd) -> {pid, uid, gid} of a Unix socket's other end (SO_PEERCRED).
Napi::Value SocketPeer(const Napi::CallbackInfo& info) {
  return guarded(info.Env(), [&]() -> Napi::Value {
    ucred cred{};
    socklen_t len = sizeof cred;
    if (::getsockopt(fdArg(Args(info, "socketPeer"), 0), SOL_SOCKET, SO_PEERCRED, &cred, &len) != 0)
      wm::fail(std::string("SO_PEERCRED: ") + std::strerror(errno));
    auto out = Napi::Object::New(info.Env());
    out.Set("pid", Napi::Number::New(info.Env(), cred.pid));
    out.Set("uid", Napi::Number::New(info.Env(), cred.uid));
    out.Set("gid", Napi::Number::New(info.Env(), cred.gid));
    return out;
  });
}

// fdLimit() -> the soft limit on open descriptors (RLIMIT_NOFILE).
Napi::Value FdLimit(const Napi::CallbackInfo& info) {
  rlimit r{};
  ::getrlimit(RLIMIT_NOFILE, &r);
  return Napi::Number::New(info.Env(), r.rlim_cur == RLIM_INFINITY ? 1e9 : static_cast<double>(r.rlim_cur));
}

}  // namespace

void InitShare(Napi::Env env, Napi::Object exports) {
  exports.Set("sharedDeviceAlloc", Napi::Function::New(env, DeviceAlloc, "sharedDeviceAlloc"));
  exports.Set("sharedDeviceFree", Napi::Function::New(env, DeviceFree, "sharedDeviceFree"));
  exports.Set("sharedDeviceOpen", Napi::Function::New(env, DeviceOpen, "sharedDeviceOpen"));
  exports.Set("sharedDeviceClose", Napi::Function::New(env, DeviceClose, "sharedDeviceClose"));
  exports.Set("sharedHostCreate", Napi::Function::New(env, HostCreate, "sharedHostCreate"));
  exports.Set("sharedHostMap", Napi::Function::New(env, HostMap, "sharedHostMap"));
  exports.Set("sharedHostState", Napi::Function::New(env, HostState, "sharedHostState"));
  exports.Set("sharedHostWrite", Napi::Function::New(env, HostWrite, "sharedHostWrite"));
  exports.Set("sharedHostSealWrites", Napi::Function::New(env, HostSealWrites, "sharedHostSealWrites"));
  exports.Set("socketPeer", Napi::Function::New(env, SocketPeer, "socketPeer"));
  exports.Set("fdLimit", Napi::Function::New(env, FdLimit, "fdLimit"));
  exports.Set("closeFd", Napi::Function::New(env, CloseFd, "closeFd"));
}
