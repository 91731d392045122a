// N-API bindings: argument conversion and async work only; all logic lives in
// the core (native/src). Device pointers travel to JavaScript as numbers
// (user-space addresses fit in 53 bits).
#include <napi.h>

#include "int32_source.h"
#include "napi_util.h"

#include <string>
#include <vector>

#include "wm/host_ops.h"
#include "wm/managed.h"
#include "wm/host_whole_memory.h"
#include "wm/sampling.h"
#include "wm/ops.h"
#include "wm/runtime.h"
#include "wm/status.h"

void InitComm(Napi::Env env, Napi::Object exports);       // comm_bindings.cc
void InitEmbedding(Napi::Env env, Napi::Object exports);  // embedding_bindings.cc
void InitShare(Napi::Env env, Napi::Object exports);      // share_bindings.cc
void InitGraph(Napi::Env env, Napi::Object exports);      // graph_bindings.cc
void InitOptimizers(Napi::Env env, Napi::Object exports); // optimizer_bindings.cc
void InitWindows(Napi::Env env, Napi::Object exports);    // window_bindings.cc
void InitGat(Napi::Env env, Napi::Object exports);        // gat_bindings.cc
void InitRowDots(Napi::Env env, Napi::Object exports);    // row_dots_bindings.cc
wm::HostWholeMemory* unwrapHostMemory(const Napi::Value& v);  // comm_bindings.cc

namespace {

using wm::DType;

uint64_t ptrArg(const Napi::CallbackInfo& info, size_t i, const char* name) {
  if (!info[i].IsNumber())
    throw Napi::TypeError::New(info.Env(), std::string(name) + " must be a number (device address)");
  double v = info[i].As<Napi::Number>().DoubleValue();
  if (v < 0) throw Napi::RangeError::New(info.Env(), std::string(name) + " must not be negative");
  return static_cast<uint64_t>(v);
}

int64_t intArg(const Napi::CallbackInfo& info, size_t i, const char* name) {
  if (!info[i].IsNumber())
    throw Napi::TypeError::New(info.Env(), std::string(name) + " must be a number");
  return info[i].As<Napi::Number>().Int64Value();
}

double numArg(const Napi::CallbackInfo& info, size_t i, const char* name) {
  if (!info[i].IsNumber())
    throw Napi::TypeError::New(info.Env(), std::string(name) + " must be a number");
  return info[i].As<Napi::Number>().DoubleValue();
}

std::vector<int64_t> dimsArg(const Napi::CallbackInfo& info, size_t i, const char* name) {
  if (!info[i].IsArray())
    throw Napi::TypeError::New(info.Env(), std::string(name) + " must be an array of integers");
  auto a = info[i].As<Napi::Array>();
  std::vector<int64_t> out(a.Length());
  for (uint32_t k = 0; k < a.Length(); ++k) {
    Napi::Value v = a.Get(k);
    if (!v.IsNumber())
      throw Napi::TypeError::New(info.Env(), std::string(name) + "[" + std::to_string(k) + "] must be a number");
    out[k] = v.As<Napi::Number>().Int64Value();
  }
  return out;
}

DType dtypeArg(const Napi::CallbackInfo& info, size_t i, const char* name) {
  int64_t v = intArg(info, i, name);
  if (v < 0 || v > 2) throw Napi::RangeError::New(info.Env(), std::string(name) + " must be 0 (float32), 1 (int32) or 2 (bool)");
  return static_cast<DType>(v);
}

Napi::TypedArray typedArg(const Napi::CallbackInfo& info, size_t i, const char* name) {
  if (!info[i].IsTypedArray())
    throw Napi::TypeError::New(info.Env(), std::string(name) + " must be a TypedArray");
  return info[i].As<Napi::TypedArray>();
}

void* typedData(Napi::TypedArray t) { return wmnapi::typedBytes(t); }

template <typename F>
Napi::Value guard(const Napi::CallbackInfo& info, F&& f) {
  return wmnapi::guarded(info.Env(), std::forward<F>(f));
}

#define WM_FN(name) Napi::Value name(const Napi::CallbackInfo& info)

WM_FN(Info) {
  return guard(info, [&] {
    auto o = Napi::Object::New(info.Env());
    o.Set("builtWithCuda", wm::builtWithCuda());
    int n = wm::deviceCount();
    o.Set("deviceCount", n);
    o.Set("reason", wm::unavailableReason());
    return o;
  });
}

WM_FN(DeviceDetails) {
  return guard(info, [&] {
    auto o = Napi::Object::New(info.Env());
    o.Set("device", wm::currentDevice());
    o.Set("name", wm::deviceName());
    o.Set("cublas", wm::cublasAvailable());
    return o;
  });
}

WM_FN(SelectDevice) {
  return guard(info, [&] {
    wm::selectDevice(static_cast<int>(intArg(info, 0, "device")));
    return info.Env().Undefined();
  });
}

WM_FN(Alloc) {
  return guard(info, [&] {
    int64_t bytes = intArg(info, 0, "bytes");
    if (bytes < 0) throw Napi::RangeError::New(info.Env(), "bytes must not be negative");
    return Napi::Number::New(info.Env(), static_cast<double>(wm::deviceAlloc(static_cast<size_t>(bytes))));
  });
}

WM_FN(Free) {
  return guard(info, [&] {
    wm::deviceFree(ptrArg(info, 0, "ptr"));
    return info.Env().Undefined();
  });
}

// useSideStream(on), mainWaitsForSide(), sideWaitsForMain(): see wm/runtime.h.
WM_FN(UseSideStream) {
  return guard(info, [&] {
    wm::useSideStream(info[0].ToBoolean().Value());
    return info.Env().Undefined();
  });
}
WM_FN(MainWaitsForSide) {
  return guard(info, [&] {
    wm::mainWaitsForSide();
    return info.Env().Undefined();
  });
}
WM_FN(SideWaitsForMain) {
  return guard(info, [&] {
    wm::sideWaitsForMain();
    return info.Env().Undefined();
  });
}

WM_FN(Upload) {
  return guard(info, [&] {
    auto t = typedArg(info, 1, "values");
    wm::copyHostToDevice(ptrArg(info, 0, "ptr"), typedData(t), t.ByteLength());
    return info.Env().Undefined();
  });
}

WM_FN(Download) {
  return guard(info, [&] {
    auto t = typedArg(info, 1, "out");
    wm::copyDeviceToHost(typedData(t), ptrArg(info, 0, "ptr"), t.ByteLength());
    return info.Env().Undefined();
  });
}

WM_FN(CopyDeviceToDevice) {
  return guard(info, [&] {
    wm::copyDeviceToDevice(ptrArg(info, 0, "dst"), ptrArg(info, 1, "src"),
                           static_cast<size_t>(intArg(info, 2, "bytes")));
    return info.Env().Undefined();
  });
}

// Waits for a queued device-to-host copy on a worker thread, so data()
// never blocks the event loop.
class ReadWorker : public Napi::AsyncWorker {
 public:
  ReadWorker(Napi::Env env, wm::PendingRead* p, Napi::TypedArray out)
      : Napi::AsyncWorker(env), pending_(p), deferred_(Napi::Promise::Deferred::New(env)),
        out_(Napi::Persistent(out)), dst_(typedData(out)) {}
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
  return guard(info, [&]() -> Napi::Value {
    auto t = typedArg(info, 1, "out");
    wm::PendingRead* p = wm::beginRead(ptrArg(info, 0, "ptr"), t.ByteLength());
    auto* w = new ReadWorker(info.Env(), p, t);
    Napi::Promise promise = w->Promise();
    w->Queue();
    return promise;
  });
}

WM_FN(Synchronize) {
  return guard(info, [&] {
    wm::synchronize();
    return info.Env().Undefined();
  });
}

WM_FN(EmptyCache) {
  return guard(info, [&] {
    wm::emptyCache();
    return info.Env().Undefined();
  });
}

WM_FN(MemoryInfo) {
  return guard(info, [&] {
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

WM_FN(Unary) {
  return guard(info, [&] {
    wm::unary(static_cast<wm::UnaryOp>(intArg(info, 0, "op")), dtypeArg(info, 1, "dtypeIn"),
              dtypeArg(info, 2, "dtypeOut"), ptrArg(info, 3, "x"), ptrArg(info, 4, "y"),
              intArg(info, 5, "n"), static_cast<float>(numArg(info, 6, "alpha")),
              static_cast<float>(numArg(info, 7, "beta")));
    return info.Env().Undefined();
  });
}

WM_FN(Binary) {
  return guard(info, [&] {
    wm::binary(static_cast<wm::BinaryOp>(intArg(info, 0, "op")), dtypeArg(info, 1, "dtypeIn"),
               dtypeArg(info, 2, "dtypeOut"), ptrArg(info, 3, "a"), ptrArg(info, 4, "b"),
               ptrArg(info, 5, "y"), dimsArg(info, 6, "shape"), dimsArg(info, 7, "aStrides"),
               dimsArg(info, 8, "bStrides"));
    return info.Env().Undefined();
  });
}

// Same-shape operands: no shape arrays to convert (the per-op fast path).
WM_FN(BinaryFlat) {
  return guard(info, [&] {
    int64_t n = intArg(info, 6, "n");
    static thread_local std::vector<int64_t> shape(1), ones(1, 1);
    shape[0] = n;
    wm::binary(static_cast<wm::BinaryOp>(intArg(info, 0, "op")), dtypeArg(info, 1, "dtypeIn"),
               dtypeArg(info, 2, "dtypeOut"), ptrArg(info, 3, "a"), ptrArg(info, 4, "b"),
               ptrArg(info, 5, "y"), shape, ones, ones);
    return info.Env().Undefined();
  });
}

WM_FN(BinaryScalar) {
  return guard(info, [&] {
    wm::binaryScalar(static_cast<wm::BinaryOp>(intArg(info, 0, "op")), dtypeArg(info, 1, "dtypeIn"),
                     dtypeArg(info, 2, "dtypeOut"), ptrArg(info, 3, "x"), numArg(info, 4, "value"),
                     info[5].ToBoolean().Value(), ptrArg(info, 6, "y"), intArg(info, 7, "n"));
    return info.Env().Undefined();
  });
}

WM_FN(SumSlices) {
  return guard(info, [&] {
    wm::sumSlices(ptrArg(info, 0, "base"), static_cast<int>(intArg(info, 1, "slices")), intArg(info, 2, "strideElems"),
                  intArg(info, 3, "n"), static_cast<float>(numArg(info, 4, "scale")), ptrArg(info, 5, "out"));
    return info.Env().Undefined();
  });
}

WM_FN(HostThreads) {
  return guard(info, [&] { return Napi::Number::New(info.Env(), wm::host::threads()); });
}

WM_FN(Select) {
  return guard(info, [&] {
    wm::select(dtypeArg(info, 0, "dtype"), ptrArg(info, 1, "cond"), ptrArg(info, 2, "a"),
               ptrArg(info, 3, "b"), ptrArg(info, 4, "y"), dimsArg(info, 5, "shape"),
               dimsArg(info, 6, "condStrides"), dimsArg(info, 7, "aStrides"),
               dimsArg(info, 8, "bStrides"));
    return info.Env().Undefined();
  });
}

WM_FN(Fill) {
  return guard(info, [&] {
    wm::fill(dtypeArg(info, 0, "dtype"), ptrArg(info, 1, "y"), intArg(info, 2, "n"),
             numArg(info, 3, "value"));
    return info.Env().Undefined();
  });
}

WM_FN(StridedCopy) {
  return guard(info, [&] {
    wm::stridedCopy(static_cast<int>(intArg(info, 0, "elemSize")), ptrArg(info, 1, "src"),
                    intArg(info, 2, "srcOffset"), dimsArg(info, 3, "srcStrides"),
                    dimsArg(info, 4, "srcMod"), ptrArg(info, 5, "dst"), intArg(info, 6, "dstOffset"),
                    dimsArg(info, 7, "dstStrides"), dimsArg(info, 8, "shape"));
    return info.Env().Undefined();
  });
}

WM_FN(Reduce) {
  return guard(info, [&] {
    wm::reduce(static_cast<wm::ReduceOp>(intArg(info, 0, "op")), dtypeArg(info, 1, "dtypeIn"),
               dtypeArg(info, 2, "dtypeOut"), ptrArg(info, 3, "x"), ptrArg(info, 4, "y"),
               intArg(info, 5, "outer"), intArg(info, 6, "inner"), info.Length() > 7 ? intArg(info, 7, "after") : 1);
    return info.Env().Undefined();
  });
}

WM_FN(Softmax) {
  return guard(info, [&] {
    wm::softmax(ptrArg(info, 0, "x"), ptrArg(info, 1, "y"), intArg(info, 2, "outer"),
                intArg(info, 3, "inner"), info[4].ToBoolean().Value());
    return info.Env().Undefined();
  });
}

WM_FN(BatchMatMul) {
  return guard(info, [&] {
    wm::batchMatMul(ptrArg(info, 0, "a"), ptrArg(info, 1, "b"), ptrArg(info, 2, "c"),
                    intArg(info, 3, "batch"), intArg(info, 4, "m"), intArg(info, 5, "n"),
                    intArg(info, 6, "k"), info[7].ToBoolean().Value(), info[8].ToBoolean().Value(),
                    intArg(info, 9, "aBatchStride"), intArg(info, 10, "bBatchStride"),
                    info.Length() > 11 ? static_cast<float>(numArg(info, 11, "beta")) : 0.f);
    return info.Env().Undefined();
  });
}

WM_FN(Gather) {
  return guard(info, [&] {
    wm::gather(dtypeArg(info, 0, "dtype"), ptrArg(info, 1, "x"), ptrArg(info, 2, "indices"),
               ptrArg(info, 3, "y"), intArg(info, 4, "outer"), intArg(info, 5, "axisDim"),
               intArg(info, 6, "inner"), intArg(info, 7, "numIndices"),
               intArg(info, 8, "outerPerBatch"), ptrArg(info, 9, "errorFlag"));
    return info.Env().Undefined();
  });
}

WM_FN(UnsortedSegmentSum) {
  return guard(info, [&] {
    wm::unsortedSegmentSum(dtypeArg(info, 0, "dtype"), ptrArg(info, 1, "x"),
                           ptrArg(info, 2, "segmentIds"), ptrArg(info, 3, "y"),
                           intArg(info, 4, "numRows"), intArg(info, 5, "inner"),
                           intArg(info, 6, "numSegments"));
    return info.Env().Undefined();
  });
}

WM_FN(ScatterNd) {
  return guard(info, [&] {
    wm::scatterNd(dtypeArg(info, 0, "dtype"), ptrArg(info, 1, "indices"), ptrArg(info, 2, "updates"),
                  ptrArg(info, 3, "y"), intArg(info, 4, "numUpdates"), intArg(info, 5, "indexDepth"),
                  intArg(info, 6, "sliceSize"), dimsArg(info, 7, "dims"), ptrArg(info, 8, "errorFlag"));
    return info.Env().Undefined();
  });
}

WM_FN(OneHot) {
  return guard(info, [&] {
    wm::oneHot(dtypeArg(info, 0, "dtype"), ptrArg(info, 1, "indices"), ptrArg(info, 2, "y"),
               intArg(info, 3, "n"), intArg(info, 4, "depth"), numArg(info, 5, "onValue"),
               numArg(info, 6, "offValue"));
    return info.Env().Undefined();
  });
}

// dropout(x, y, n, threshold, scale, seedHigh, seedLow): the seed's two 32-bit halves.
uint64_t seedArg(const Napi::CallbackInfo& info, size_t hi, size_t lo) {
  return (static_cast<uint64_t>(intArg(info, hi, "seedHigh")) << 32) | static_cast<uint32_t>(intArg(info, lo, "seedLow"));
}

WM_FN(Dropout) {
  return guard(info, [&] {
    wm::dropout(ptrArg(info, 0, "x"), ptrArg(info, 1, "y"), intArg(info, 2, "n"), static_cast<uint32_t>(intArg(info, 3, "threshold")),
                static_cast<float>(numArg(info, 4, "scale")), seedArg(info, 5, 6));
    return info.Env().Undefined();
  });
}

// ---- managed (unified) memory ----

WM_FN(ManagedAlloc) {
  return guard(info, [&] {
    return Napi::Number::New(info.Env(), static_cast<double>(wm::managedAlloc(static_cast<size_t>(intArg(info, 0, "bytes")))));
  });
}
WM_FN(ManagedFree) {
  return guard(info, [&] {
    wm::managedFree(ptrArg(info, 0, "ptr"));
    return info.Env().Undefined();
  });
}
WM_FN(ManagedEmptyCache) {
  return guard(info, [&] {
    wm::managedEmptyCache();
    return info.Env().Undefined();
  });
}
WM_FN(ManagedInfo) {
  return guard(info, [&] {
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
  return guard(info, [&] {
    return Napi::Number::New(info.Env(), static_cast<double>(wm::managedSizeClass(static_cast<size_t>(intArg(info, 0, "bytes")))));
  });
}
WM_FN(ManagedAdvise) {
  return guard(info, [&] {
    wm::managedAdvise(ptrArg(info, 0, "ptr"), static_cast<size_t>(intArg(info, 1, "bytes")),
                      static_cast<int>(intArg(info, 2, "preferredLocation")), static_cast<int>(intArg(info, 3, "accessedBy")));
    return info.Env().Undefined();
  });
}
WM_FN(ManagedPrefetch) {
  return guard(info, [&] {
    wm::managedPrefetch(ptrArg(info, 0, "ptr"), static_cast<size_t>(intArg(info, 1, "bytes")), static_cast<int>(intArg(info, 2, "location")));
    return info.Env().Undefined();
  });
}
WM_FN(PinnedHostAlloc) {
  return guard(info, [&] {
    return Napi::Number::New(info.Env(), static_cast<double>(wm::pinnedHostAlloc(static_cast<size_t>(intArg(info, 0, "bytes")))));
  });
}
WM_FN(PinnedHostFree) {
  return guard(info, [&] {
    wm::pinnedHostFree(ptrArg(info, 0, "ptr"));
    return info.Env().Undefined();
  });
}

// ---- neighbour sampling ----

WM_FN(SampleWithReplacement) {
  return guard(info, [&] {
    wm::sampleWithReplacement(ptrArg(info, 0, "rowPtr"), ptrArg(info, 1, "colIdx"), intArg(info, 2, "numVertices"),
                              ptrArg(info, 3, "seeds"), intArg(info, 4, "n"), static_cast<int>(intArg(info, 5, "fanout")),
                              static_cast<uint64_t>(intArg(info, 6, "seed")), ptrArg(info, 7, "out"), ptrArg(info, 8, "errorFlag"),
                              info.Length() > 9 && info[9].ToBoolean());
    return info.Env().Undefined();
  });
}
WM_FN(SampleWithoutReplacement) {
  return guard(info, [&] {
    wm::sampleWithoutReplacement(ptrArg(info, 0, "rowPtr"), ptrArg(info, 1, "colIdx"), intArg(info, 2, "numVertices"),
                                 ptrArg(info, 3, "seeds"), intArg(info, 4, "n"), static_cast<int>(intArg(info, 5, "fanout")),
                                 static_cast<uint64_t>(intArg(info, 6, "seed")), ptrArg(info, 7, "offsets"), ptrArg(info, 8, "out"),
                                 ptrArg(info, 9, "errorFlag"), info.Length() > 10 && info[10].ToBoolean());
    return info.Env().Undefined();
  });
}
// hostSampleWithReplacement(rowPtr, colIdx, seeds, fanout, seed, out, keyByVertex?) -> bad seed position or -1
WM_FN(HostSampleWithReplacement) {
  return guard(info, [&] {
    Int32Source rowPtr = int32Source(info, 0, "rowPtr"), colIdx = int32Source(info, 1, "colIdx");
    auto seeds = info[2].As<Napi::Int32Array>();
    auto out = info[5].As<Napi::Int32Array>();
    int fanout = static_cast<int>(intArg(info, 3, "fanout"));
    if (out.ElementLength() != seeds.ElementLength() * static_cast<size_t>(fanout)) throw Napi::RangeError::New(info.Env(), "out must hold seeds x fanout entries");
    return Napi::Number::New(info.Env(), static_cast<double>(wm::host::sampleWithReplacement(
        rowPtr.data, colIdx.data, colIdx.length, rowPtr.length - 1, seeds.Data(), seeds.ElementLength(), fanout,
        static_cast<uint64_t>(intArg(info, 4, "seed")), out.Data(), info.Length() > 6 && info[6].ToBoolean())));
  });
}
// hostSampleWithoutReplacement(rowPtr, colIdx, seeds, fanout, seed, offsets, out | null, keyByVertex?) -> bad seed position or -1
WM_FN(HostSampleWithoutReplacement) {
  return guard(info, [&] {
    Int32Source rowPtr = int32Source(info, 0, "rowPtr"), colIdx = int32Source(info, 1, "colIdx");
    auto seeds = info[2].As<Napi::Int32Array>();
    auto offsets = info[5].As<Napi::Int32Array>();
    if (offsets.ElementLength() != seeds.ElementLength() + 1) throw Napi::RangeError::New(info.Env(), "offsets must hold seeds + 1 entries");
    int32_t* out = info[6].IsTypedArray() ? info[6].As<Napi::Int32Array>().Data() : nullptr;
    return Napi::Number::New(info.Env(), static_cast<double>(wm::host::sampleWithoutReplacement(
        rowPtr.data, colIdx.data, colIdx.length, rowPtr.length - 1, seeds.Data(), seeds.ElementLength(),
        static_cast<int>(intArg(info, 3, "fanout")), static_cast<uint64_t>(intArg(info, 4, "seed")), offsets.Data(), out,
        info.Length() > 7 && info[7].ToBoolean())));
  });
}

// ---- host (CPU) kernels: the same operations over typed arrays ----

WM_FN(HostUnary) {
  return guard(info, [&] {
    auto x = typedArg(info, 3, "x");
    auto y = typedArg(info, 4, "y");
    wm::host::unary(static_cast<wm::UnaryOp>(intArg(info, 0, "op")), dtypeArg(info, 1, "dtypeIn"),
                    dtypeArg(info, 2, "dtypeOut"), typedData(x), typedData(y), x.ElementLength(),
                    static_cast<float>(numArg(info, 5, "alpha")), static_cast<float>(numArg(info, 6, "beta")));
    return info.Env().Undefined();
  });
}

WM_FN(HostBinary) {
  return guard(info, [&] {
    wm::host::binary(static_cast<wm::BinaryOp>(intArg(info, 0, "op")), dtypeArg(info, 1, "dtypeIn"),
                     dtypeArg(info, 2, "dtypeOut"), typedData(typedArg(info, 3, "a")), typedData(typedArg(info, 4, "b")),
                     typedData(typedArg(info, 5, "y")), dimsArg(info, 6, "shape"), dimsArg(info, 7, "aStrides"),
                     dimsArg(info, 8, "bStrides"));
    return info.Env().Undefined();
  });
}

WM_FN(HostSelect) {
  return guard(info, [&] {
    wm::host::select(dtypeArg(info, 0, "dtype"), typedData(typedArg(info, 1, "cond")), typedData(typedArg(info, 2, "a")),
                     typedData(typedArg(info, 3, "b")), typedData(typedArg(info, 4, "y")), dimsArg(info, 5, "shape"),
                     dimsArg(info, 6, "condStrides"), dimsArg(info, 7, "aStrides"), dimsArg(info, 8, "bStrides"));
    return info.Env().Undefined();
  });
}

WM_FN(HostStridedCopy) {
  return guard(info, [&] {
    wm::host::stridedCopy(static_cast<int>(intArg(info, 0, "elemSize")), typedData(typedArg(info, 1, "src")),
                          intArg(info, 2, "srcOffset"), dimsArg(info, 3, "srcStrides"), dimsArg(info, 4, "srcMod"),
                          typedData(typedArg(info, 5, "dst")), intArg(info, 6, "dstOffset"),
                          dimsArg(info, 7, "dstStrides"), dimsArg(info, 8, "shape"));
    return info.Env().Undefined();
  });
}

WM_FN(HostReduce) {
  return guard(info, [&] {
    wm::host::reduce(static_cast<wm::ReduceOp>(intArg(info, 0, "op")), dtypeArg(info, 1, "dtypeIn"),
                     dtypeArg(info, 2, "dtypeOut"), typedData(typedArg(info, 3, "x")), typedData(typedArg(info, 4, "y")),
                     intArg(info, 5, "outer"), intArg(info, 6, "reduceSize"), intArg(info, 7, "inner"));
    return info.Env().Undefined();
  });
}

// cumulative(product, dtype, x, y, outer, n, inner, exclusive, reverse)
WM_FN(Cumulative) {
  return guard(info, [&] {
    wm::cumulative(info[0].ToBoolean().Value(), dtypeArg(info, 1, "dtype"), ptrArg(info, 2, "x"), ptrArg(info, 3, "y"), intArg(info, 4, "outer"),
                   intArg(info, 5, "n"), intArg(info, 6, "inner"), info[7].ToBoolean().Value(), info[8].ToBoolean().Value());
    return info.Env().Undefined();
  });
}
WM_FN(HostCumulative) {
  return guard(info, [&] {
    const int64_t outer = intArg(info, 4, "outer"), n = intArg(info, 5, "n"), inner = intArg(info, 6, "inner");
    auto x = typedArg(info, 2, "x"), y = typedArg(info, 3, "y");
    if (x.ByteLength() < static_cast<size_t>(outer * n * inner * 4) || y.ByteLength() < static_cast<size_t>(outer * n * inner * 4))
      throw Napi::RangeError::New(info.Env(), "hostCumulative: x and y must hold outer * n * inner elements");
    wm::host::cumulative(info[0].ToBoolean().Value(), dtypeArg(info, 1, "dtype"), typedData(x), typedData(y), outer, n, inner,
                         info[7].ToBoolean().Value(), info[8].ToBoolean().Value());
    return info.Env().Undefined();
  });
}

// topK(dtype, x, values, indices, rows, n, k)
WM_FN(TopK) {
  return guard(info, [&] {
    wm::topK(dtypeArg(info, 0, "dtype"), ptrArg(info, 1, "x"), ptrArg(info, 2, "values"), ptrArg(info, 3, "indices"), intArg(info, 4, "rows"),
             intArg(info, 5, "n"), intArg(info, 6, "k"));
    return info.Env().Undefined();
  });
}
WM_FN(HostTopK) {
  return guard(info, [&] {
    const int64_t rows = intArg(info, 4, "rows"), n = intArg(info, 5, "n"), k = intArg(info, 6, "k");
    auto x = typedArg(info, 1, "x"), values = typedArg(info, 2, "values");
    auto indices = info[3].As<Napi::Int32Array>();
    if (x.ByteLength() < static_cast<size_t>(rows * n * 4) || values.ByteLength() < static_cast<size_t>(rows * k * 4) ||
        indices.ElementLength() < static_cast<size_t>(rows * k))
      throw Napi::RangeError::New(info.Env(), "hostTopK: x must hold rows * n entries, values and indices rows * k");
    wm::host::topK(dtypeArg(info, 0, "dtype"), typedData(x), typedData(values), indices.Data(), rows, n, k);
    return info.Env().Undefined();
  });
}

WM_FN(HostSoftmax) {
  return guard(info, [&] {
    wm::host::softmax(static_cast<const float*>(typedData(typedArg(info, 0, "x"))),
                      static_cast<float*>(typedData(typedArg(info, 1, "y"))), intArg(info, 2, "outer"),
                      intArg(info, 3, "inner"), info[4].ToBoolean().Value());
    return info.Env().Undefined();
  });
}

// biasActivation(y, bias, rows, cols, relu)
WM_FN(BiasActivation) {
  return guard(info, [&] {
    wm::biasActivation(ptrArg(info, 0, "y"), ptrArg(info, 1, "bias"), intArg(info, 2, "rows"), intArg(info, 3, "cols"), info[4].ToBoolean().Value());
    return info.Env().Undefined();
  });
}

// biasActivationGrad(dy, y, rows, cols, relu, dz, dBias)
WM_FN(BiasActivationGrad) {
  return guard(info, [&] {
    wm::biasActivationGrad(ptrArg(info, 0, "dy"), ptrArg(info, 1, "y"), intArg(info, 2, "rows"), intArg(info, 3, "cols"),
                           info[4].ToBoolean().Value(), ptrArg(info, 5, "dz"), ptrArg(info, 6, "dBias"));
    return info.Env().Undefined();
  });
}

// softmaxCrossEntropy(logits, labels, classIds, rows, classes, scale, rowLoss | 0, total | 0)
WM_FN(SoftmaxCrossEntropy) {
  return guard(info, [&] {
    wm::softmaxCrossEntropy(ptrArg(info, 0, "logits"), ptrArg(info, 1, "labels"), info[2].ToBoolean().Value(), intArg(info, 3, "rows"),
                            intArg(info, 4, "classes"), static_cast<float>(numArg(info, 5, "scale")), ptrArg(info, 6, "rowLoss"),
                            ptrArg(info, 7, "total"));
    return info.Env().Undefined();
  });
}

// softmaxCrossEntropyGrad(logits, labels, classIds, rows, classes, dLoss, perRow, scale, dLogits)
WM_FN(SoftmaxCrossEntropyGrad) {
  return guard(info, [&] {
    wm::softmaxCrossEntropyGrad(ptrArg(info, 0, "logits"), ptrArg(info, 1, "labels"), info[2].ToBoolean().Value(), intArg(info, 3, "rows"),
                                intArg(info, 4, "classes"), ptrArg(info, 5, "dLoss"), info[6].ToBoolean().Value(),
                                static_cast<float>(numArg(info, 7, "scale")), ptrArg(info, 8, "dLogits"));
    return info.Env().Undefined();
  });
}

// A typed array of at least `need` elements, or (when optional) null/undefined.
float* floatsArg(const Napi::CallbackInfo& info, size_t i, const char* name, int64_t need, bool optional = false) {
  if (optional && (info[i].IsNull() || info[i].IsUndefined())) return nullptr;
  auto t = typedArg(info, i, name);
  if (t.TypedArrayType() != napi_float32_array) throw Napi::TypeError::New(info.Env(), std::string(name) + " must be a Float32Array");
  if (static_cast<int64_t>(t.ElementLength()) < need)
    throw Napi::RangeError::New(info.Env(), std::string(name) + " holds " + std::to_string(t.ElementLength()) + " values, needs " + std::to_string(need));
  return static_cast<float*>(typedData(t));
}

const void* labelsArg(const Napi::CallbackInfo& info, size_t i, bool classIds, int64_t rows, int64_t classes) {
  auto t = typedArg(info, i, "labels");
  const auto want = classIds ? napi_int32_array : napi_float32_array;
  const int64_t need = classIds ? rows : rows * classes;
  if (t.TypedArrayType() != want || static_cast<int64_t>(t.ElementLength()) != need)
    throw Napi::TypeError::New(info.Env(), classIds ? "labels must be an Int32Array of one class id per row" : "labels must be a Float32Array of rows x classes");
  return typedData(t);
}

WM_FN(HostSoftmaxCrossEntropy) {
  return guard(info, [&] {
    const bool ids = info[2].ToBoolean().Value();
    const int64_t rows = intArg(info, 3, "rows"), classes = intArg(info, 4, "classes");
    wm::host::softmaxCrossEntropy(floatsArg(info, 0, "logits", rows * classes), labelsArg(info, 1, ids, rows, classes), ids, rows, classes,
                                  static_cast<float>(numArg(info, 5, "scale")), floatsArg(info, 6, "rowLoss", rows, true),
                                  floatsArg(info, 7, "total", 1, true));
    return info.Env().Undefined();
  });
}

WM_FN(HostSoftmaxCrossEntropyGrad) {
  return guard(info, [&] {
    const bool ids = info[2].ToBoolean().Value(), perRow = info[6].ToBoolean().Value();
    const int64_t rows = intArg(info, 3, "rows"), classes = intArg(info, 4, "classes");
    wm::host::softmaxCrossEntropyGrad(floatsArg(info, 0, "logits", rows * classes), labelsArg(info, 1, ids, rows, classes), ids, rows,
                                      classes, floatsArg(info, 5, "dLoss", perRow ? rows : 1), perRow,
                                      static_cast<float>(numArg(info, 7, "scale")), floatsArg(info, 8, "dLogits", rows * classes));
    return info.Env().Undefined();
  });
}

// hostDropout(x: Float32Array, y: Float32Array, threshold, scale, seedHigh, seedLow)
WM_FN(HostDropout) {
  return guard(info, [&] {
    const int64_t n = static_cast<int64_t>(typedArg(info, 0, "x").ElementLength());
    wm::host::dropout(floatsArg(info, 0, "x", n), floatsArg(info, 1, "y", n), n, static_cast<uint32_t>(intArg(info, 2, "threshold")),
                      static_cast<float>(numArg(info, 3, "scale")), seedArg(info, 4, 5));
    return info.Env().Undefined();
  });
}

WM_FN(HostBatchMatMul) {
  return guard(info, [&] {
    wm::host::batchMatMul(static_cast<const float*>(typedData(typedArg(info, 0, "a"))),
                          static_cast<const float*>(typedData(typedArg(info, 1, "b"))),
                          static_cast<float*>(typedData(typedArg(info, 2, "c"))), intArg(info, 3, "batch"),
                          intArg(info, 4, "m"), intArg(info, 5, "n"), intArg(info, 6, "k"), info[7].ToBoolean().Value(),
                          info[8].ToBoolean().Value(), intArg(info, 9, "aBatchStride"), intArg(info, 10, "bBatchStride"));
    return info.Env().Undefined();
  });
}

WM_FN(HostSegmentSum) {
  return guard(info, [&] {
    auto ids = typedArg(info, 2, "ids");
    if (ids.TypedArrayType() != napi_int32_array) throw Napi::TypeError::New(info.Env(), "ids must be an Int32Array");
    const int64_t rows = intArg(info, 4, "rows"), inner = intArg(info, 5, "inner"), numSegments = intArg(info, 6, "numSegments");
    auto x = typedArg(info, 1, "x"), y = typedArg(info, 3, "y");
    if (static_cast<int64_t>(ids.ElementLength()) < rows || static_cast<int64_t>(x.ElementLength()) < rows * inner ||
        static_cast<int64_t>(y.ElementLength()) < numSegments * inner) {
      throw Napi::RangeError::New(info.Env(), "hostSegmentSum: x, ids or y is shorter than rows, inner and numSegments say");
    }
    wm::host::segmentSum(dtypeArg(info, 0, "dtype"), typedData(x), static_cast<const int32_t*>(typedData(ids)), typedData(y), rows,
                         inner, numSegments);
    return info.Env().Undefined();
  });
}

// hostOneHot(dtype, indices Int32Array, y, depth, onValue, offValue)
WM_FN(HostOneHot) {
  return guard(info, [&] {
    auto idx = typedArg(info, 1, "indices"), y = typedArg(info, 2, "y");
    if (idx.TypedArrayType() != napi_int32_array) throw Napi::TypeError::New(info.Env(), "hostOneHot: indices must be an Int32Array");
    const int64_t n = static_cast<int64_t>(idx.ElementLength()), depth = intArg(info, 3, "depth");
    const wm::DType dt = dtypeArg(info, 0, "dtype");
    if (static_cast<int64_t>(y.ElementSize()) != wm::dtypeSize(dt)) throw Napi::TypeError::New(info.Env(), "hostOneHot: y's element type is not dtype's");
    if (depth < 0 || static_cast<int64_t>(y.ElementLength()) < n * depth)
      throw Napi::RangeError::New(info.Env(), "hostOneHot: y must hold indices.length x depth elements");
    wm::host::oneHot(dt, static_cast<const int32_t*>(typedData(idx)), typedData(y), n, depth,
                     numArg(info, 4, "onValue"), numArg(info, 5, "offValue"));
    return info.Env().Undefined();
  });
}

// hostScatterNd(dtype, indices Int32Array, updates, y, numUpdates, indexDepth, sliceSize, dims): y zero-filled,
// every index checked against dims here too (a bad one is an error, not a stray write).
WM_FN(HostScatterNd) {
  return guard(info, [&] {
    auto idx = typedArg(info, 1, "indices"), updates = typedArg(info, 2, "updates"), y = typedArg(info, 3, "y");
    if (idx.TypedArrayType() != napi_int32_array) throw Napi::TypeError::New(info.Env(), "hostScatterNd: indices must be an Int32Array");
    const int64_t numUpdates = intArg(info, 4, "numUpdates"), depth = intArg(info, 5, "indexDepth"), sliceSize = intArg(info, 6, "sliceSize");
    const auto dims = dimsArg(info, 7, "dims");
    const wm::DType dt = dtypeArg(info, 0, "dtype");
    if (static_cast<int64_t>(updates.ElementSize()) != wm::dtypeSize(dt) || static_cast<int64_t>(y.ElementSize()) != wm::dtypeSize(dt))
      throw Napi::TypeError::New(info.Env(), "hostScatterNd: updates' and y's element type must be dtype's");
    int64_t rows = 1;
    for (int64_t d : dims) rows *= d;
    if (static_cast<int64_t>(dims.size()) != depth || static_cast<int64_t>(idx.ElementLength()) < numUpdates * depth ||
        static_cast<int64_t>(updates.ElementLength()) < numUpdates * sliceSize || static_cast<int64_t>(y.ElementLength()) < rows * sliceSize)
      throw Napi::RangeError::New(info.Env(), "hostScatterNd: indices, updates or y is shorter than the shapes say");
    const auto* ip = static_cast<const int32_t*>(typedData(idx));
    for (int64_t e = 0; e < numUpdates * depth; ++e) {
      if (ip[e] < 0 || ip[e] >= dims[e % depth])
        throw Napi::RangeError::New(info.Env(), "hostScatterNd: index " + std::to_string(ip[e]) + " of update " + std::to_string(e / depth) +
                                                    " is outside [0, " + std::to_string(dims[e % depth]) + ")");
    }
    wm::host::scatterNd(dt, ip, typedData(updates), typedData(y), numUpdates, depth, sliceSize, dims);
    return info.Env().Undefined();
  });
}

WM_FN(HostGather) {
  return guard(info, [&] {
    auto idx = typedArg(info, 2, "indices");
    if (idx.TypedArrayType() != napi_int32_array) throw Napi::TypeError::New(info.Env(), "indices must be an Int32Array");
    int64_t bad = wm::host::gather(static_cast<int>(intArg(info, 0, "elemSize")), typedData(typedArg(info, 1, "x")),
                                   static_cast<const int32_t*>(typedData(idx)), typedData(typedArg(info, 3, "y")),
                                   intArg(info, 4, "outer"), intArg(info, 5, "axisDim"), intArg(info, 6, "inner"),
                                   intArg(info, 7, "numIndices"), intArg(info, 8, "outerPerBatch"));
    return Napi::Number::New(info.Env(), static_cast<double>(bad));
  });
}

Napi::Object Init(Napi::Env env, Napi::Object exports) {
  struct Entry {
    const char* name;
    Napi::Value (*fn)(const Napi::CallbackInfo&);
  };
  const Entry entries[] = {
      {"info", Info}, {"deviceDetails", DeviceDetails}, {"selectDevice", SelectDevice},
      {"alloc", Alloc}, {"free", Free}, {"useSideStream", UseSideStream}, {"mainWaitsForSide", MainWaitsForSide},
      {"sideWaitsForMain", SideWaitsForMain}, {"upload", Upload}, {"download", Download},
      {"copyDeviceToDevice", CopyDeviceToDevice}, {"readAsync", ReadAsync},
      {"synchronize", Synchronize}, {"emptyCache", EmptyCache}, {"memoryInfo", MemoryInfo},
      {"unary", Unary}, {"binary", Binary}, {"binaryFlat", BinaryFlat}, {"binaryScalar", BinaryScalar}, {"sampleWithReplacement", SampleWithReplacement},
      {"sampleWithoutReplacement", SampleWithoutReplacement}, {"hostSampleWithReplacement", HostSampleWithReplacement},
      {"hostSampleWithoutReplacement", HostSampleWithoutReplacement}, {"sumSlices", SumSlices}, {"hostThreads", HostThreads}, {"select", Select}, {"fill", Fill},
      {"stridedCopy", StridedCopy}, {"reduce", Reduce}, {"softmax", Softmax}, {"cumulative", Cumulative}, {"topK", TopK},
      {"batchMatMul", BatchMatMul}, {"gather", Gather},
      {"unsortedSegmentSum", UnsortedSegmentSum}, {"scatterNd", ScatterNd}, {"oneHot", OneHot}, {"dropout", Dropout}, {"hostDropout", HostDropout},
      {"hostOneHot", HostOneHot}, {"hostScatterNd", HostScatterNd}, {"hostUnary", HostUnary}, {"hostBinary", HostBinary}, {"hostSelect", HostSelect},
      {"hostStridedCopy", HostStridedCopy}, {"hostReduce", HostReduce}, {"hostSoftmax", HostSoftmax}, {"hostCumulative", HostCumulative}, {"hostTopK", HostTopK},
      {"hostBatchMatMul", HostBatchMatMul}, {"softmaxCrossEntropy", SoftmaxCrossEntropy},
      {"biasActivation", BiasActivation}, {"biasActivationGrad", BiasActivationGrad},
      {"softmaxCrossEntropyGrad", SoftmaxCrossEntropyGrad}, {"hostSoftmaxCrossEntropy", HostSoftmaxCrossEntropy},
      {"hostSoftmaxCrossEntropyGrad", HostSoftmaxCrossEntropyGrad}, {"hostGather", HostGather}, {"hostSegmentSum", HostSegmentSum},
      {"managedAlloc", ManagedAlloc}, {"managedFree", ManagedFree}, {"managedEmptyCache", ManagedEmptyCache},
      {"managedInfo", ManagedInfo}, {"managedSizeClass", ManagedSizeClass}, {"managedAdvise", ManagedAdvise},
      {"managedPrefetch", ManagedPrefetch}, {"pinnedHostAlloc", PinnedHostAlloc}, {"pinnedHostFree", PinnedHostFree},
  };
  for (const Entry& e : entries) exports.Set(e.name, Napi::Function::New(env, e.fn, e.name));
  InitComm(env, exports);
  InitEmbedding(env, exports);
  InitShare(env, exports);
  InitGraph(env, exports);
  InitOptimizers(env, exports);
  InitWindows(env, exports);
  InitGat(env, exports);
  InitRowDots(env, exports);
  return exports;
}

}  // namespace

NODE_API_MODULE(wholememory, Init)
