// N-API bindings of the embedding kernels (device and host).
#include <napi.h>

#include "napi_args.h"

#include <string>

#include "wm/distributed.h"
#include "wm/embedding.h"
#include "wm/host_whole_memory.h"

#include "wm/device_whole_memory.h"

wm::HostWholeMemory* unwrapHostMemory(const Napi::Value& v);  // comm_bindings.cc
wm::DeviceWholeMemory* unwrapDeviceMemory(const Napi::Value& v);
wm::NcclComm& ncclOfCommunicator(const Napi::Value& v);  // comm_bindings.cc  // comm_bindings.cc, null if not one

namespace {

using wmnapi::Args;

template <typename F>
Napi::Value guarded(const Napi::CallbackInfo& info, F&& f) {
  return wmnapi::guarded(info.Env(), std::forward<F>(f));
}

double num(const Napi::Object& o, const char* key) {
  Napi::Value v = o.Get(key);
  if (!v.IsNumber()) throw Napi::TypeError::New(o.Env(), std::string("table.") + key + " must be a number");
  return v.As<Napi::Number>().DoubleValue();
}

uint8_t* bytes(const Napi::TypedArray& t) { return wmnapi::typedBytes(t); }

// {ptr | array | memory, rows, dim, storage}: a device address, a host typed
// array, or a host WholeMemory tensor (continuous or chunked).
wm::TableRef tableArg(const Napi::Value& v) {
  if (!v.IsObject()) throw Napi::TypeError::New(v.Env(), "table must be an object");
  auto o = v.As<Napi::Object>();
  wm::TableRef t;
  t.rows = static_cast<int64_t>(num(o, "rows"));
  t.dim = static_cast<int64_t>(num(o, "dim"));
  t.storage = static_cast<wm::StorageType>(static_cast<int>(num(o, "storage")));
  if (o.Has("rowBase")) t.rowBase = static_cast<int64_t>(num(o, "rowBase"));
  if (o.Has("memory") && o.Get("memory").IsObject()) {
    if (wm::DeviceWholeMemory* d = unwrapDeviceMemory(o.Get("memory"))) {
      wm::TableRef dt = d->table();  // addresses the WholeMemory; keep our storage type and width
      dt.rows = t.rows;
      dt.dim = t.dim;
      dt.storage = t.storage;
      return dt;
    }
    wm::HostWholeMemory* m = unwrapHostMemory(o.Get("memory"));
    if (m->type() == wm::MemoryType::Distributed) throw Napi::Error::New(v.Env(), "distributed tables are gathered collectively, not here");
    if (m->continuousBase())
      t.ptr = reinterpret_cast<uint64_t>(m->continuousBase());
    else
      t.chunked = &m->chunkedHandle();
  } else if (o.Has("array") && o.Get("array").IsTypedArray()) {
    t.ptr = reinterpret_cast<uint64_t>(bytes(o.Get("array").As<Napi::TypedArray>()));
  } else {
    t.ptr = static_cast<uint64_t>(num(o, "ptr"));
  }
  return t;
}

wm::OptimizerParams paramsArg(const Args& a, size_t i) {
  auto o = a.object(i, "params");
  wm::OptimizerParams p;
  p.lr = static_cast<float>(num(o, "lr"));
  p.beta1 = static_cast<float>(num(o, "beta1"));
  p.beta2 = static_cast<float>(num(o, "beta2"));
  p.rho = static_cast<float>(num(o, "rho"));
  p.eps = static_cast<float>(num(o, "eps"));
  p.weightDecay = static_cast<float>(num(o, "weightDecay"));
  p.biasCorrection1 = static_cast<float>(num(o, "biasCorrection1"));
  p.biasCorrection2 = static_cast<float>(num(o, "biasCorrection2"));
  return p;
}

wm::IndexType indexTypeOf(const Napi::TypedArray& t) {
  if (t.TypedArrayType() == napi_int32_array) return wm::IndexType::I32;
  if (t.TypedArrayType() == napi_bigint64_array) return wm::IndexType::I64;
  throw Napi::TypeError::New(t.Env(), "indices must be an Int32Array or a BigInt64Array");
}

// Host indices: an Int32Array or BigInt64Array of at least n entries, matching indexType.
const void* hostIndices(const Args& a, size_t i, wm::IndexType declared, int64_t n) {
  auto idx = a.typed(i, "indices");
  if (indexTypeOf(idx) != declared) a.reject(i, "indices", "must match indexType (0: Int32Array, 1: BigInt64Array)");
  if (static_cast<int64_t>(idx.ElementLength()) < n) a.reject(i, "indices", "holds fewer than n entries");
  return bytes(idx);
}

wm::IndexType indexTypeArg(const Args& a, size_t i) {
  const int64_t v = a.count(i, "indexType");
  if (v > 1) a.reject(i, "indexType", "must be 0 (int32) or 1 (int64)");
  return static_cast<wm::IndexType>(v);
}

wm::SparseOptimizer optimizerArg(const Args& a, size_t i) {
  const int64_t v = a.count(i, "opt");
  if (v > static_cast<int64_t>(wm::SparseOptimizer::RMSProp)) a.reject(i, "opt", "must be 0 (sgd), 1 (adam), 2 (adagrad) or 3 (rmsprop)");
  return static_cast<wm::SparseOptimizer>(v);
}

// Indices in a typed array run the host kernels; a device address the CUDA ones.
bool onHost(const Args& a, size_t indicesArg) { return a[indicesArg].IsTypedArray(); }

// A row-moving call: (table, indices, indexType, n, rows, errorFlag) -> on the host, the first bad position or -1.
// Host and Device are the core's host and device functions for it; `rows` is what they read or write.
template <typename Host, typename Device>
Napi::Value moveRows(const Napi::CallbackInfo& info, const char* op, const char* rowsName, Host host, Device device) {
  return guarded(info, [&]() -> Napi::Value {
    Args a(info, op);
    const wm::TableRef t = tableArg(info[0]);
    const auto type = indexTypeArg(a, 2);
    const int64_t n = a.count(3, "n");
    if (onHost(a, 1))
      return Napi::Number::New(info.Env(),
                               static_cast<double>(host(t, hostIndices(a, 1, type, n), type, n, a.floats(4, rowsName, n * t.dim))));
    device(t, a.address(1, "indices"), type, n, a.address(4, rowsName), a.address(5, "errorFlag"));
    return info.Env().Undefined();
  });
}

// embeddingGather(table, indices, indexType, n, out, errorFlag)
Napi::Value Gather(const Napi::CallbackInfo& info) {
  return moveRows(info, "embeddingGather", "out", wm::host::embeddingGather, wm::embeddingGather);
}

// embeddingWriteRows(table, indices, indexType, n, values, errorFlag)
Napi::Value WriteRows(const Napi::CallbackInfo& info) {
  return moveRows(info, "embeddingWriteRows", "values", wm::host::embeddingWriteRows, wm::embeddingWriteRows);
}

// Host optimizer state: a typed array, continuous host WholeMemory, or null.
float* hostState(const Napi::CallbackInfo& info, const Napi::Value& v) {
  if (v.IsNull() || v.IsUndefined() || (v.IsNumber() && v.As<Napi::Number>().DoubleValue() == 0)) return nullptr;
  if (v.IsObject() && !v.IsTypedArray()) {
    wm::HostWholeMemory* m = unwrapHostMemory(v);
    if (!m->continuousBase()) throw Napi::Error::New(info.Env(), "optimizer state must be continuous memory");
    return reinterpret_cast<float*>(m->continuousBase());
  }
  return reinterpret_cast<float*>(bytes(v.As<Napi::TypedArray>()));
}

// embeddingApply(table, state0, state1, indices, indexType, n, grads, opt, params, errorFlag, skipped)
//   -> on the host, the skipped elements (the device writes them to `skipped`)
Napi::Value Apply(const Napi::CallbackInfo& info) {
  return guarded(info, [&]() -> Napi::Value {
    Args a(info, "embeddingApply");
    const wm::TableRef t = tableArg(info[0]);
    const auto type = indexTypeArg(a, 4);
    const int64_t n = a.count(5, "n");
    const auto opt = optimizerArg(a, 7);
    if (onHost(a, 3)) {
      const int64_t skipped = wm::host::embeddingApply(t, hostState(info, info[1]), hostState(info, info[2]), hostIndices(a, 3, type, n),
                                                       type, n, a.floats(6, "grads", n * t.dim), opt, paramsArg(a, 8));
      return Napi::Number::New(info.Env(), static_cast<double>(skipped));
    }
    wm::embeddingApply(t, a.address(1, "state0"), a.address(2, "state1"), a.address(3, "indices"), type, n, a.address(6, "grads"), opt,
                       paramsArg(a, 8), a.address(9, "errorFlag"), a.address(10, "skipped"));
    return info.Env().Undefined();
  });
}

// embeddingInit(table, firstRow, count, seed, kind, scale, onDevice)
Napi::Value Init(const Napi::CallbackInfo& info) {
  return guarded(info, [&]() -> Napi::Value {
    Args a(info, "embeddingInit");
    wm::TableRef t = tableArg(info[0]);
    const int64_t first = a.count(1, "firstRow"), count = a.count(2, "count");
    const uint64_t seed = static_cast<uint64_t>(a.count(3, "seed"));
    const int kind = static_cast<int>(a.count(4, "kind"));
    const float scale = static_cast<float>(a.number(5, "scale"));
    if (a.flag(6, "onDevice"))
      wm::embeddingInit(t, first, count, seed, kind, scale);
    else
      wm::host::embeddingInit(t, first, count, seed, kind, scale);
    return info.Env().Undefined();
  });
}

}  // namespace

namespace {

// A distributed table's layout: this rank's part is `table` (its local rows).
wm::DistributedLayout distributedLayoutArg(const Args& a, const wm::TableRef& local) {
  wm::DistributedLayout l;
  l.rows = a.count(2, "rows");
  l.rowsPerRank = a.count(3, "rowsPerRank");
  l.rowBytes = local.dim * 4;
  l.localRows = local.rows;
  l.noun = "table";
  return l;
}

// distributedEmbeddingGather(communicator, table, rows, rowsPerRank, indices, n, out): collective
Napi::Value DistributedGather(const Napi::CallbackInfo& info) {
  return wmnapi::guarded(info.Env(), [&]() -> Napi::Value {
    Args a(info, "distributedEmbeddingGather");
    wm::TableRef t = tableArg(info[1]);
    wm::distributedEmbeddingGather(ncclOfCommunicator(info[0]), distributedLayoutArg(a, t), t, a.address(4, "indices"), a.count(5, "n"),
                                   a.address(6, "out"), "embedding.read");
    return info.Env().Undefined();
  });
}
// distributedEmbeddingWrite(communicator, table, rows, rowsPerRank, indices, n, values): collective
Napi::Value DistributedWrite(const Napi::CallbackInfo& info) {
  return wmnapi::guarded(info.Env(), [&]() -> Napi::Value {
    Args a(info, "distributedEmbeddingWrite");
    wm::TableRef t = tableArg(info[1]);
    wm::distributedEmbeddingWrite(ncclOfCommunicator(info[0]), distributedLayoutArg(a, t), t, a.address(4, "indices"), a.count(5, "n"),
                                  a.address(6, "values"), "embedding.write");
    return info.Env().Undefined();
  });
}
// distributedEmbeddingApply(communicator, table, rows, rowsPerRank, state0, state1, indices, n, grads, opt, params, skipped): collective
Napi::Value DistributedApply(const Napi::CallbackInfo& info) {
  return wmnapi::guarded(info.Env(), [&]() -> Napi::Value {
    Args a(info, "distributedEmbeddingApply");
    wm::TableRef t = tableArg(info[1]);
    wm::distributedEmbeddingApply(ncclOfCommunicator(info[0]), distributedLayoutArg(a, t), t, a.address(4, "state0"),
                                  a.address(5, "state1"), a.address(6, "indices"), a.count(7, "n"), a.address(8, "grads"),
                                  optimizerArg(a, 9), paramsArg(a, 10), a.address(11, "skipped"), "embedding.applyGradients");
    return info.Env().Undefined();
  });
}

}  // namespace

void InitEmbedding(Napi::Env env, Napi::Object exports) {
  exports.Set("distributedEmbeddingGather", Napi::Function::New(env, DistributedGather, "distributedEmbeddingGather"));
  exports.Set("distributedEmbeddingWrite", Napi::Function::New(env, DistributedWrite, "distributedEmbeddingWrite"));
  exports.Set("distributedEmbeddingApply", Napi::Function::New(env, DistributedApply, "distributedEmbeddingApply"));
  exports.Set("embeddingInit", Napi::Function::New(env, Init, "embeddingInit"));
  exports.Set("embeddingGather", Napi::Function::New(env, Gather, "embeddingGather"));
  exports.Set("embeddingWriteRows", Napi::Function::New(env, WriteRows, "embeddingWriteRows"));
  exports.Set("embeddingApply", Napi::Function::New(env, Apply, "embeddingApply"));
}
