// The embedding bindings that take more than the op table carries: the reader's table and host-memory
// hooks (how a table object and a WholeMemory handle become a wm::TableRef), initialisation (its place
// is named by the caller: nothing in its arguments says host or device) and the distributed tables'
// collectives (they take a communicator). Gather, write and the optimizer step are table ops
// (native/src/embedding/).
#include <napi.h>

#include <cmath>
#include <string>

#include "napi_args.h"
#include "wm/device_whole_memory.h"
#include "wm/distributed.h"
#include "wm/embedding.h"
#include "wm/host_whole_memory.h"
#include "wm/op_timing.h"

// comm_bindings.cc: the handles behind its objects (null when the value is not one), and a communicator's NCCL.
wm::HostWholeMemory* unwrapHostMemory(const Napi::Value& v);
wm::DeviceWholeMemory* unwrapDeviceMemory(const Napi::Value& v);
wm::NcclComm& ncclOfCommunicator(const Napi::Value& v);

namespace {

using wmnapi::Args;

template <typename F>
Napi::Value guarded(const Napi::CallbackInfo& info, F&& f) {
  return wmnapi::guarded(info.Env(), std::forward<F>(f));
}

// A table's row cache {hot, slotOf, slots, hits?, exceptFirst?, exceptCount?} (wm::RowCache), beside a contiguous
// table: device addresses beside a device address (hits, where given, the device counter of its hits; exceptFirst /
// exceptCount, where given, the one run of rows the slots leave out), typed arrays (slotOf an Int32Array of one entry
// per row) beside a host array.
wm::RowCache cacheOf(const Args& a, size_t i, const char* name, const wm::TableRef& t, bool hostTable, const Napi::Object& c) {
  if (t.chunked != nullptr || t.ptr == 0) a.reject(i, name, ".cache needs one contiguous table");
  const Napi::Value slots = c.Get("slots"), hot = c.Get("hot"), slotOf = c.Get("slotOf");
  if (!slots.IsNumber() || !(slots.As<Napi::Number>().DoubleValue() >= 0) || slots.As<Napi::Number>().DoubleValue() > 2147483647.0)
    a.reject(i, name, ".cache.slots must be an integer in [0, 2^31)");
  wm::RowCache rc;
  rc.slots = slots.As<Napi::Number>().Int64Value();
  if (hostTable && hot.IsTypedArray() && slotOf.IsTypedArray()) {
    const Napi::TypedArray h = hot.As<Napi::TypedArray>(), s = slotOf.As<Napi::TypedArray>();
    if (s.TypedArrayType() != napi_int32_array || static_cast<int64_t>(s.ElementLength()) < t.rows)
      a.reject(i, name, ".cache.slotOf must be an Int32Array of one entry per row");
    if (static_cast<double>(h.ByteLength()) < static_cast<double>(rc.slots) * t.dim * wm::storageBytes(t.storage))
      a.reject(i, name, ".cache.hot holds fewer bytes than its slots need");
    rc.hot = reinterpret_cast<uint64_t>(wmnapi::typedBytes(h));
    rc.slotOf = reinterpret_cast<uint64_t>(wmnapi::typedBytes(s));
  } else if (!hostTable && hot.IsNumber() && slotOf.IsNumber()) {
    rc.hot = static_cast<uint64_t>(hot.As<Napi::Number>().Int64Value());
    rc.slotOf = static_cast<uint64_t>(slotOf.As<Napi::Number>().Int64Value());
    const Napi::Value hits = c.Get("hits");
    if (!hits.IsUndefined() && !hits.IsNumber()) a.reject(i, name, ".cache.hits must be a device address where given");
    if (hits.IsNumber()) rc.hits = static_cast<uint64_t>(hits.As<Napi::Number>().Int64Value());
    const Napi::Value first = c.Get("exceptFirst");
    if (!first.IsUndefined()) {
      const Napi::Value count = c.Get("exceptCount");
      const double f = first.IsNumber() ? first.As<Napi::Number>().DoubleValue() : -1,
                   k = count.IsNumber() ? count.As<Napi::Number>().DoubleValue() : -1;
      // The slots hold exactly the rows outside [f, f + k): rows - k of them.
      if (!(f >= 0 && k >= 0 && f + k <= static_cast<double>(t.rows) && std::floor(f) == f && std::floor(k) == k &&
            static_cast<double>(rc.slots) == static_cast<double>(t.rows) - k))
        a.reject(i, name, ".cache.exceptFirst / exceptCount must be the one run of rows its slots leave out");
      rc.exceptFirst = static_cast<int64_t>(f);
      rc.exceptCount = static_cast<int64_t>(k);
    }
  } else {
    a.reject(i, name,
             ".cache must hold hot and slotOf where the table is: device addresses beside a GPU table, typed arrays beside a host one");
  }
  if (rc.slotOf == 0) a.reject(i, name, ".cache.slotOf must not be 0");
  return rc;
}

// A table object {ptr | array | memory, rows, dim, storage, rowBase?, cache?}: a device address, a host typed array,
// or a WholeMemory handle (device: its mapped address; host: continuous base or chunked handle). A cache beside
// WholeMemory is this process's own (continuous tables only): device addresses on a GPU, typed arrays on the host.
wm::TableRef tableOf(const Args& a, size_t i, const char* name) {
  auto field = [&](const char* key) {
    const double v = a.rawField(i, key);
    if (!(v >= 0 && v <= 9007199254740992.0) || v != std::floor(v))
      a.reject(i, name, std::string(".") + key + " must be a non-negative integer");
    return static_cast<int64_t>(v);
  };
  const Napi::Object o = a.object(i, name);
  wm::TableRef t;
  t.rows = field("rows");
  t.dim = field("dim");
  t.storage = static_cast<wm::StorageType>(field("storage"));
  if (o.Has("rowBase")) t.rowBase = field("rowBase");
  const Napi::Value memory = o.Get("memory");
  bool hostTable = false;
  if (memory.IsObject()) {
    if (wm::DeviceWholeMemory* d = unwrapDeviceMemory(memory)) {
      wm::TableRef dt = d->table();  // addresses the WholeMemory; keep our storage type, width and first row's place
      dt.rows = t.rows;
      dt.dim = t.dim;
      dt.storage = t.storage;
      dt.rowBase = t.rowBase;
      t = dt;
    } else {
      wm::HostWholeMemory* m = unwrapHostMemory(memory);
      if (m == nullptr) a.reject(i, name, ".memory must be a WholeMemory handle");
      if (m->type() == wm::MemoryType::Distributed) a.reject(i, name, "is distributed: its rows are gathered collectively");
      hostTable = true;
      if (m->continuousBase())
        t.ptr = reinterpret_cast<uint64_t>(m->continuousBase());
      else
        t.chunked = &m->chunkedHandle();
    }
  } else if (o.Get("array").IsTypedArray()) {
    hostTable = true;
    const Napi::TypedArray arr = o.Get("array").As<Napi::TypedArray>();
    if (static_cast<double>(arr.ByteLength()) < static_cast<double>(t.rows) * t.dim * wm::storageBytes(t.storage))
      a.reject(i, name, ".array holds fewer bytes than rows x dim elements of its storage");
    t.ptr = reinterpret_cast<uint64_t>(wmnapi::typedBytes(arr));
  } else {
    t.ptr = static_cast<uint64_t>(field("ptr"));
  }
  const Napi::Value cache = o.Get("cache");
  if (cache.IsObject()) t.cache = cacheOf(a, i, name, t, hostTable, cache.As<Napi::Object>());
  return t;
}

// embeddingInit(table, firstRow, count, seed, kind, scale, onDevice)
Napi::Value Init(const Napi::CallbackInfo& info) {
  return guarded(info, [&]() -> Napi::Value {
    Args a(info, "embeddingInit");
    const wm::TableRef t = a.table(0, "table");
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

// A distributed table's layout: this rank's part is `local` (its local rows).
wm::DistributedLayout distributedLayoutArg(const Args& a, const wm::TableRef& local) {
  wm::DistributedLayout l;
  l.rows = a.count(2, "rows");
  l.rowsPerRank = a.count(3, "rowsPerRank");
  l.rowBytes = local.dim * 4;
  l.localRows = local.rows;
  l.noun = "table";
  return l;
}

// distributedEmbeddingGather(communicator, local, rows, rowsPerRank, indices, n, out): collective
Napi::Value DistributedGather(const Napi::CallbackInfo& info) {
  return wmnapi::guarded(info.Env(), [&]() -> Napi::Value {
    Args a(info, "distributedEmbeddingGather");
    const wm::OpTimer timer("distributedEmbeddingGather", true);
    const wm::TableRef t = a.table(1, "local");
    wm::distributedEmbeddingGather(ncclOfCommunicator(info[0]), distributedLayoutArg(a, t), t, a.address(4, "indices"), a.count(5, "n"),
                                   a.address(6, "out"), "embedding.read");
    return info.Env().Undefined();
  });
}
// distributedEmbeddingWrite(communicator, local, rows, rowsPerRank, indices, n, values): collective
Napi::Value DistributedWrite(const Napi::CallbackInfo& info) {
  return wmnapi::guarded(info.Env(), [&]() -> Napi::Value {
    Args a(info, "distributedEmbeddingWrite");
    const wm::OpTimer timer("distributedEmbeddingWrite", true);
    const wm::TableRef t = a.table(1, "local");
    wm::distributedEmbeddingWrite(ncclOfCommunicator(info[0]), distributedLayoutArg(a, t), t, a.address(4, "indices"), a.count(5, "n"),
                                  a.address(6, "values"), "embedding.write");
    return info.Env().Undefined();
  });
}
// distributedEmbeddingApply(communicator, local, rows, rowsPerRank, state0, state1, indices, n, grads, opt, params, skipped): collective
Napi::Value DistributedApply(const Napi::CallbackInfo& info) {
  return wmnapi::guarded(info.Env(), [&]() -> Napi::Value {
    Args a(info, "distributedEmbeddingApply");
    const wm::OpTimer timer("distributedEmbeddingApply", true);
    const wm::TableRef t = a.table(1, "local");
    wm::distributedEmbeddingApply(ncclOfCommunicator(info[0]), distributedLayoutArg(a, t), t, a.address(4, "state0"),
                                  a.address(5, "state1"), a.address(6, "indices"), a.count(7, "n"), a.address(8, "grads"),
                                  a.optimizer(9, "opt"), a.optimizerParams(10, "params"), a.address(11, "skipped"),
                                  "embedding.applyGradients");
    return info.Env().Undefined();
  });
}

// ownerEmbeddingApply(communicator, table, first, count, state0, state1, indices, n, nMax, grads, opt, params, skipped): collective
Napi::Value OwnerApply(const Napi::CallbackInfo& info) {
  return wmnapi::guarded(info.Env(), [&]() -> Napi::Value {
    Args a(info, "ownerEmbeddingApply");
    const wm::OpTimer timer("ownerEmbeddingApply", true);
    const wm::TableRef t = a.table(1, "table");
    wm::ownerEmbeddingApply(ncclOfCommunicator(info[0]), t, a.count(2, "first"), a.count(3, "count"), a.address(4, "state0"),
                            a.address(5, "state1"), a.address(6, "indices"), a.count(7, "n"), a.count(8, "nMax"), a.address(9, "grads"),
                            a.optimizer(10, "opt"), a.optimizerParams(11, "params"), a.address(12, "skipped"), "embedding.stepTogether");
    return info.Env().Undefined();
  });
}

// sharedEmbeddingAdd(communicator, table, indices, n, grads, params, skipped): collective; SGD's steps added by every rank
Napi::Value SharedAdd(const Napi::CallbackInfo& info) {
  return wmnapi::guarded(info.Env(), [&]() -> Napi::Value {
    Args a(info, "sharedEmbeddingAdd");
    const wm::OpTimer timer("sharedEmbeddingAdd", true);
    const wm::TableRef t = a.table(1, "table");
    wm::sharedEmbeddingAdd(ncclOfCommunicator(info[0]), t, a.address(2, "indices"), a.count(3, "n"), a.address(4, "grads"),
                           a.optimizerParams(5, "params"), a.address(6, "skipped"), "embedding.stepTogether");
    return info.Env().Undefined();
  });
}

}  // namespace

wm::TableRef wmnapi::Args::rawTable(size_t i, const char* name) const { return tableOf(*this, i, name); }

void* wmnapi::Args::rawHostMemory(size_t i, const char* name, int64_t* bytes) const {
  wm::HostWholeMemory* m = unwrapHostMemory(info_[i]);
  if (m == nullptr || m->continuousBase() == nullptr) reject(i, name, "must be a Float32Array, null, or continuous host WholeMemory");
  *bytes = m->rows() * m->rowBytes();
  return m->continuousBase();
}

void InitEmbedding(Napi::Env env, Napi::Object exports) {
  exports.Set("distributedEmbeddingGather", Napi::Function::New(env, DistributedGather, "distributedEmbeddingGather"));
  exports.Set("distributedEmbeddingWrite", Napi::Function::New(env, DistributedWrite, "distributedEmbeddingWrite"));
  exports.Set("distributedEmbeddingApply", Napi::Function::New(env, DistributedApply, "distributedEmbeddingApply"));
  exports.Set("ownerEmbeddingApply", Napi::Function::New(env, OwnerApply, "ownerEmbeddingApply"));
  exports.Set("sharedEmbeddingAdd", Napi::Function::New(env, SharedAdd, "sharedEmbeddingAdd"));
  exports.Set("embeddingInit", Napi::Function::New(env, Init, "embeddingInit"));
}
