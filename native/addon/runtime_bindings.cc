// Bindings of the runtime: whether and which GPU, allocations, copies,
// streams, managed and pinned memory (wm/runtime.h, wm/managed.h). Device
// addresses travel to JavaScript as numbers (user-space addresses fit in 53 bits).
#include <napi.h>

#include <string>

#include "napi_args.h"
#include "wm/cpu_binding.h"
#include "wm/cuda_setup.h"
#include "wm/host_heap.h"
#include "wm/managed.h"
#include "wm/matmul_precision.h"
#include "wm/op_timing.h"
#include "wm/runtime.h"
#include "wm/status.h"

namespace {

using wmnapi::Args;
using wmnapi::guarded;

#define WM_FN(name) Napi::Value name(const Napi::CallbackInfo& info)

WM_FN(Info) {
  return guarded(info.Env(), [&]() -> Napi::Value {
    auto o = Napi::Object::New(info.Env());
    o.Set("builtWithCuda", wm::builtWithCuda());
    int n = wm::deviceCount();
    o.Set("deviceCount", n);
    o.Set("reason", wm::unavailableReason());
    return o;
  });
}

WM_FN(DeviceDetails) {
  return guarded(info.Env(), [&]() -> Napi::Value {
    auto o = Napi::Object::New(info.Env());
    o.Set("device", wm::currentDevice());
    o.Set("name", wm::deviceName());
    o.Set("cublas", wm::cublasAvailable());
    o.Set("cpuBinding", wm::cpuBinding());
    return o;
  });
}

// The whole CUDA picture for a report (npx tfjs-wm-doctor): versions, targets
// compiled in, GPUs, peer access (queries of the runtime and driver only).
WM_FN(CudaSetup) {
  return guarded(info.Env(), [&]() -> Napi::Value {
    Napi::Env env = info.Env();
    wm::CudaSetup s = wm::cudaSetup();
    auto o = Napi::Object::New(env);
    o.Set("runtimeVersion", s.runtimeVersion);
    o.Set("driverVersion", s.driverVersion);
    o.Set("archs", s.archs);
    auto gpus = Napi::Array::New(env, s.gpus.size());
    for (size_t i = 0; i < s.gpus.size(); ++i) {
      const wm::GpuProperties& g = s.gpus[i];
      auto v = Napi::Object::New(env);
      v.Set("name", g.name);
      v.Set("computeCapability", std::to_string(g.major) + "." + std::to_string(g.minor));
      v.Set("totalBytes", static_cast<double>(g.totalBytes));
      v.Set("multiprocessors", g.multiprocessors);
      v.Set("pciBusId", g.pciBusId);
      auto peers = Napi::Array::New(env, s.peerAccess[i].size());
      for (size_t j = 0; j < s.peerAccess[i].size(); ++j) peers.Set(static_cast<uint32_t>(j), Napi::Boolean::New(env, s.peerAccess[i][j]));
      v.Set("peerAccess", peers);
      auto atomics = Napi::Array::New(env, s.peerAtomics[i].size());
      for (size_t j = 0; j < s.peerAtomics[i].size(); ++j)
        atomics.Set(static_cast<uint32_t>(j), Napi::Boolean::New(env, s.peerAtomics[i][j]));
      v.Set("peerAtomics", atomics);
      gpus.Set(static_cast<uint32_t>(i), v);
    }
    o.Set("gpus", gpus);
    return o;
  });
}

// Which image of the kernels the current GPU runs and where cuBLAS and NCCL
// came from: makes the GPU's context and loads both libraries.
WM_FN(KernelImage) {
  return guarded(info.Env(), [&]() -> Napi::Value {
    wm::KernelImage k = wm::kernelImage();
    auto o = Napi::Object::New(info.Env());
    o.Set("binaryVersion", k.binaryVersion);
    o.Set("ptxVersion", k.ptxVersion);
    o.Set("cublas", wm::cublasLocation());
    o.Set("nccl", wm::ncclLocation());
    return o;
  });
}

WM_FN(SelectDevice) {
  return guarded(info.Env(), [&]() -> Napi::Value {
    Args a(info, "selectDevice");
    wm::selectDevice(static_cast<int>(a.integer(0, "device")));
    return info.Env().Undefined();
  });
}

WM_FN(Alloc) {
  return guarded(info.Env(), [&]() -> Napi::Value {
    Args a(info, "alloc");
    int64_t bytes = a.integer(0, "bytes");
    if (bytes < 0) throw Napi::RangeError::New(info.Env(), "bytes must not be negative");
    return Napi::Number::New(info.Env(), static_cast<double>(wm::deviceAlloc(static_cast<size_t>(bytes))));
  });
}

WM_FN(Free) {
  return guarded(info.Env(), [&]() -> Napi::Value {
    Args a(info, "free");
    wm::deviceFree(a.address(0, "ptr"));
    return info.Env().Undefined();
  });
}

// useSideStream(on), mainWaitsForSide(), sideWaitsForMain(): see wm/runtime.h.
WM_FN(UseSideStream) {
  return guarded(info.Env(), [&]() -> Napi::Value {
    wm::useSideStream(info[0].ToBoolean().Value());
    return info.Env().Undefined();
  });
}
WM_FN(MainWaitsForSide) {
  return guarded(info.Env(), [&]() -> Napi::Value {
    wm::mainWaitsForSide();
    return info.Env().Undefined();
  });
}
WM_FN(SideWaitsForMain) {
  return guarded(info.Env(), [&]() -> Napi::Value {
    wm::sideWaitsForMain();
    return info.Env().Undefined();
  });
}

WM_FN(Upload) {
  return guarded(info.Env(), [&]() -> Napi::Value {
    Args a(info, "upload");
    auto t = a.typed(1, "values");
    wm::copyHostToDevice(a.address(0, "ptr"), wmnapi::typedBytes(t), t.ByteLength());
    return info.Env().Undefined();
  });
}

WM_FN(Download) {
  return guarded(info.Env(), [&]() -> Napi::Value {
    Args a(info, "download");
    auto t = a.typed(1, "out");
    wm::copyDeviceToHost(wmnapi::typedBytes(t), a.address(0, "ptr"), t.ByteLength());
    return info.Env().Undefined();
  });
}

WM_FN(CopyDeviceToDevice) {
  return guarded(info.Env(), [&]() -> Napi::Value {
    Args a(info, "copyDeviceToDevice");
    wm::copyDeviceToDevice(a.address(0, "dst"), a.address(1, "src"), static_cast<size_t>(a.integer(2, "bytes")));
    return info.Env().Undefined();
  });
}

// Waits for a queued device-to-host copy on a worker thread, so data()
// never blocks the event loop.
class ReadWorker : public Napi::AsyncWorker {
 public:
  ReadWorker(Napi::Env env, wm::PendingRead* p, Napi::TypedArray out)
      : Napi::AsyncWorker(env),
        pending_(p),
        deferred_(Napi::Promise::Deferred::New(env)),
        out_(Napi::Persistent(out)),
        dst_(wmnapi::typedBytes(out)) {}
  ~ReadWorker() override {
    if (pending_) wm::cancelRead(pending_);
  }
  Napi::Promise Promise() { return deferred_.Promise(); }
  void Execute() override {
    wm::PendingRead* p = pending_;
    pending_ = nullptr;
    try {
      wm::finishRead(p, dst_);
    } catch (const std::exception& e) {
      SetError(e.what());
    }
  }
  void OnOK() override { deferred_.Resolve(out_.Value()); }
  void OnError(const Napi::Error& e) override { deferred_.Reject(e.Value()); }

 private:
  wm::PendingRead* pending_;
  Napi::Promise::Deferred deferred_;
  Napi::Reference<Napi::TypedArray> out_;
  void* dst_;
};

WM_FN(ReadAsync) {
  return guarded(info.Env(), [&]() -> Napi::Value {
    Args a(info, "readAsync");
    auto t = a.typed(1, "out");
    wm::PendingRead* p = wm::beginRead(a.address(0, "ptr"), t.ByteLength());
    auto* w = new ReadWorker(info.Env(), p, t);
    Napi::Promise promise = w->Promise();
    w->Queue();
    return promise;
  });
}

WM_FN(Synchronize) {
  return guarded(info.Env(), [&]() -> Napi::Value {
    wm::synchronize();
    return info.Env().Undefined();
  });
}

WM_FN(EmptyCache) {
  return guarded(info.Env(), [&]() -> Napi::Value {
    wm::emptyCache();
    return info.Env().Undefined();
  });
}

WM_FN(MemoryInfo) {
  return guarded(info.Env(), [&]() -> Napi::Value {
    wm::DeviceMemoryInfo m = wm::deviceMemoryInfo();
    auto o = Napi::Object::New(info.Env());
    o.Set("bytesInUse", static_cast<double>(m.bytesInUse));
    o.Set("bytesReserved", static_cast<double>(m.bytesReserved));
    o.Set("peakBytesInUse", static_cast<double>(m.peakBytesInUse));
    o.Set("allocations", static_cast<double>(m.allocations));
    o.Set("freeBytes", static_cast<double>(m.freeBytes));
    o.Set("totalBytes", static_cast<double>(m.totalBytes));
    return o;
  });
}

WM_FN(CpuThreads) {
  return guarded(info.Env(), [&]() -> Napi::Value { return Napi::Number::New(info.Env(), wm::host::threads()); });
}
WM_FN(KeepHostBlocksInHeap) {
  return guarded(info.Env(), [&]() -> Napi::Value { return Napi::Boolean::New(info.Env(), wm::host::keepBlocksInHeap()); });
}

// ---- managed (unified) memory ----

WM_FN(ManagedAlloc) {
  return guarded(info.Env(), [&]() -> Napi::Value {
    Args a(info, "managedAlloc");
    return Napi::Number::New(info.Env(), static_cast<double>(wm::managedAlloc(static_cast<size_t>(a.integer(0, "bytes")))));
  });
}
WM_FN(ManagedFree) {
  return guarded(info.Env(), [&]() -> Napi::Value {
    Args a(info, "managedFree");
    wm::managedFree(a.address(0, "ptr"));
    return info.Env().Undefined();
  });
}
WM_FN(ManagedEmptyCache) {
  return guarded(info.Env(), [&]() -> Napi::Value {
    wm::managedEmptyCache();
    return info.Env().Undefined();
  });
}
WM_FN(ManagedInfo) {
  return guarded(info.Env(), [&]() -> Napi::Value {
    wm::ManagedInfo m = wm::managedInfo();
    auto o = Napi::Object::New(info.Env());
    o.Set("bytesInUse", static_cast<double>(m.bytesInUse));
    o.Set("bytesCached", static_cast<double>(m.bytesCached));
    o.Set("allocations", static_cast<double>(m.allocations));
    o.Set("hits", static_cast<double>(m.hits));
    o.Set("misses", static_cast<double>(m.misses));
    return o;
  });
}
WM_FN(ManagedSizeClass) {
  return guarded(info.Env(), [&]() -> Napi::Value {
    Args a(info, "managedSizeClass");
    return Napi::Number::New(info.Env(), static_cast<double>(wm::managedSizeClass(static_cast<size_t>(a.integer(0, "bytes")))));
  });
}
WM_FN(ManagedAdvise) {
  return guarded(info.Env(), [&]() -> Napi::Value {
    Args a(info, "managedAdvise");
    wm::managedAdvise(a.address(0, "ptr"), static_cast<size_t>(a.integer(1, "bytes")), static_cast<int>(a.integer(2, "preferredLocation")),
                      static_cast<int>(a.integer(3, "accessedBy")));
    return info.Env().Undefined();
  });
}
WM_FN(ManagedPrefetch) {
  return guarded(info.Env(), [&]() -> Napi::Value {
    Args a(info, "managedPrefetch");
    wm::managedPrefetch(a.address(0, "ptr"), static_cast<size_t>(a.integer(1, "bytes")), static_cast<int>(a.integer(2, "location")));
    return info.Env().Undefined();
  });
}
WM_FN(PinnedHostAlloc) {
  return guarded(info.Env(), [&]() -> Napi::Value {
    Args a(info, "pinnedHostAlloc");
    return Napi::Number::New(info.Env(), static_cast<double>(wm::pinnedHostAlloc(static_cast<size_t>(a.integer(0, "bytes")))));
  });
}
WM_FN(PinnedHostFree) {
  return guarded(info.Env(), [&]() -> Napi::Value {
    Args a(info, "pinnedHostFree");
    wm::pinnedHostFree(a.address(0, "ptr"));
    return info.Env().Undefined();
  });
}

// setOpTiming(on); takeOpTimes() -> [{name, device, calls, ms}], the slowest first: see wm/op_timing.h.
WM_FN(SetOpTiming) {
  return guarded(info.Env(), [&]() -> Napi::Value {
    wm::setOpTiming(info[0].ToBoolean().Value());
    return info.Env().Undefined();
  });
}
WM_FN(TakeOpTimes) {
  return guarded(info.Env(), [&]() -> Napi::Value {
    const std::vector<wm::OpTime> times = wm::takeOpTimes();
    Napi::Array out = Napi::Array::New(info.Env(), times.size());
    for (uint32_t i = 0; i < times.size(); ++i) {
      Napi::Object o = Napi::Object::New(info.Env());
      o.Set("name", times[i].name);
      o.Set("device", times[i].device);
      o.Set("calls", static_cast<double>(times[i].calls));
      o.Set("ms", times[i].ms);
      out.Set(i, o);
    }
    return out;
  });
}

// setMatmulPrecision(level: 0 highest, 1 high, 2 medium); matmulPrecision() -> level: see wm/matmul_precision.h.
WM_FN(SetMatmulPrecision) {
  return guarded(info.Env(), [&]() -> Napi::Value {
    Args a(info, "setMatmulPrecision");
    const int64_t level = a.integer(0, "level");
    WM_REQUIRE(level >= 0 && level <= 2, "setMatmulPrecision: level must be 0, 1 or 2, got " + std::to_string(level));
    wm::setMatmulPrecision(static_cast<wm::MatmulPrecision>(level));
    return info.Env().Undefined();
  });
}
WM_FN(GetMatmulPrecision) {
  return guarded(info.Env(), [&]() -> Napi::Value { return Napi::Number::New(info.Env(), static_cast<double>(wm::matmulPrecision())); });
}

}  // namespace

void InitRuntime(Napi::Env env, Napi::Object exports) {
  struct Entry {
    const char* name;
    Napi::Value (*fn)(const Napi::CallbackInfo&);
  };
  const Entry entries[] = {
      {"info", Info},
      {"deviceDetails", DeviceDetails},
      {"cudaSetup", CudaSetup},
      {"kernelImage", KernelImage},
      {"selectDevice", SelectDevice},
      {"alloc", Alloc},
      {"free", Free},
      {"useSideStream", UseSideStream},
      {"mainWaitsForSide", MainWaitsForSide},
      {"sideWaitsForMain", SideWaitsForMain},
      {"upload", Upload},
      {"download", Download},
      {"copyDeviceToDevice", CopyDeviceToDevice},
      {"readAsync", ReadAsync},
      {"synchronize", Synchronize},
      {"emptyCache", EmptyCache},
      {"memoryInfo", MemoryInfo},
      {"setOpTiming", SetOpTiming},
      {"takeOpTimes", TakeOpTimes},
      {"setMatmulPrecision", SetMatmulPrecision},
      {"matmulPrecision", GetMatmulPrecision},
      {"cpuThreads", CpuThreads},
      {"keepHostBlocksInHeap", KeepHostBlocksInHeap},
      {"managedAlloc", ManagedAlloc},
      {"managedFree", ManagedFree},
      {"managedEmptyCache", ManagedEmptyCache},
      {"managedInfo", ManagedInfo},
      {"managedSizeClass", ManagedSizeClass},
      {"managedAdvise", ManagedAdvise},
      {"managedPrefetch", ManagedPrefetch},
      {"pinnedHostAlloc", PinnedHostAlloc},
      {"pinnedHostFree", PinnedHostFree},
  };
  for (const Entry& e : entries) exports.Set(e.name, Napi::Function::New(env, e.fn, e.name));
}
