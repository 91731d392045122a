// N-API bindings of the bootstrap communicator and host WholeMemory.
#include <napi.h>

#include "napi_args.h"

#include <chrono>
#include <memory>
#include <string>
#include <vector>

#include "wm/allreduce_plan.h"
#include "wm/bootstrap.h"
#include "wm/device_whole_memory.h"
#include "wm/embedding.h"
#include "wm/flag_barrier.h"
#include "wm/host_whole_memory.h"
#include "wm/nccl_comm.h"
#include "wm/peer_allreduce.h"
#include "wm/runtime.h"

namespace {

using wmnapi::guarded;

class CommunicatorWrap : public Napi::ObjectWrap<CommunicatorWrap> {
 public:
  static Napi::Function Define(Napi::Env env) {
    return DefineClass(env, "NativeCommunicator",
                       {
                           InstanceMethod("allgather", &CommunicatorWrap::Allgather),
                           InstanceMethod("barrier", &CommunicatorWrap::Barrier),
                           InstanceMethod("setTimeout", &CommunicatorWrap::SetTimeout),
                           InstanceMethod("destroy", &CommunicatorWrap::Destroy),
                           InstanceMethod("allReduceDevice", &CommunicatorWrap::AllReduceDevice),
                           InstanceMethod("allReduceLoop", &CommunicatorWrap::AllReduceLoop),
                           InstanceAccessor("rank", &CommunicatorWrap::Rank, nullptr),
                           InstanceAccessor("size", &CommunicatorWrap::Size, nullptr),
                           InstanceAccessor("sameHost", &CommunicatorWrap::SameHost, nullptr),
                       });
  }

  // new NativeCommunicator(uniqueId, rank, size, timeoutMs)
  explicit CommunicatorWrap(const Napi::CallbackInfo& info) : Napi::ObjectWrap<CommunicatorWrap>(info) {
    guarded(info.Env(), [&] {
      wmnapi::Args a(info, "NativeCommunicator");
      const int64_t size = a.count(2, "size"), rank = a.count(1, "rank");
      if (size < 1 || size > wm::kMaxRanks) a.reject(2, "size", "must be in [1, " + std::to_string(wm::kMaxRanks) + "] ranks");
      if (rank >= size) a.reject(1, "rank", "must be below size (" + std::to_string(size) + ")");
      comm_ =
          std::make_shared<wm::Bootstrap>(a.string(0, "uniqueId"), static_cast<int>(rank), static_cast<int>(size), a.count(3, "timeoutMs"));
      return 0;
    });
  }

  wm::Bootstrap& comm(const Napi::Env& env) {
    if (!comm_) throw Napi::Error::New(env, "the communicator was destroyed");
    return *comm_;
  }

  // NCCL over this group, made at the first use (a collective: every rank
  // reaches it at the same collective call).
  wm::NcclComm& nccl(const Napi::Env& env) {
    comm(env);
    if (!nccl_) nccl_ = std::make_unique<wm::NcclComm>(comm_);
    return *nccl_;
  }

 private:
  // Collective, once: whether every pair of the group's GPUs has peer access.
  bool peerOk(wm::Bootstrap& boot) {
    if (peerOk_ < 0) peerOk_ = wm::PeerAllReduce::supported(boot, &sharedGpu_) ? 1 : 0;
    return peerOk_ == 1;
  }
  // Collective on first use: every rank's buffers (WM_AR_BUFFER_BYTES each to start with).
  wm::PeerAllReduce& peer(wm::Bootstrap& boot) {
    if (!peer_) {
      const char* v = std::getenv("WM_AR_BUFFER_BYTES");
      peer_ = std::make_unique<wm::PeerAllReduce>(boot, v && *v ? std::atoll(v) : int64_t{16} << 20);
    }
    return *peer_;
  }

  // allReduceDevice(plan: Float64Array) -> the path taken: 0 one-shot, 1 two-shot, 2 NCCL. The plan
  // (wm/allreduce_plan.h) names float32 device arrays, the wire, the op and the algorithm; queued on
  // the stream. With kPlanAllocates the outputs come from the device pool here and their addresses go
  // into the plan (freed again if the call fails). With params the peer paths fuse the SGD step
  // (out = param - lr * reduced); the NCCL path leaves the step to the caller.
  Napi::Value AllReduceDevice(const Napi::CallbackInfo& info) {
    return guarded(info.Env(), [&]() -> Napi::Value {
      auto& boot = comm(info.Env());
      wmnapi::Args args(info, "allReduceDevice");
      if (args.kind(0) != wm::OpArgs::Kind::Typed) args.reject(0, "plan", "must be a Float64Array");
      const wm::OpArgs::Typed raw = args.rawTyped(0);
      if (raw.element != wm::OpArgs::Element::Float64) args.reject(0, "plan", "must be a Float64Array");
      double* planData = static_cast<double*>(raw.data);
      wm::AllReducePlan p = wm::readAllReducePlan(planData, raw.length);
      std::vector<uint64_t> allocated;  // freed again if allocating or reducing fails
      try {
        if (p.allocates)
          for (int64_t k = 0; k < p.n; ++k) {
            allocated.push_back(wm::deviceAlloc(static_cast<size_t>(p.counts[k]) * 4));
            p.outs[k] = allocated.back();
          }
        const int path = reduce(info.Env(), boot, p);
        for (int64_t k = 0; k < static_cast<int64_t>(allocated.size()); ++k)
          planData[wm::planOutputSlot(p.n, k)] = static_cast<double>(allocated[k]);
        return Napi::Number::New(info.Env(), path);
      } catch (...) {
        for (uint64_t a : allocated) wm::deviceFree(a);
        throw;
      }
    });
  }
  // The all-reduce of a read plan: 0 one-shot, 1 two-shot, 2 NCCL.
  int reduce(const Napi::Env& env, wm::Bootstrap& boot, const wm::AllReducePlan& p) {
    const bool peers = peerOk(boot);
    int64_t bytes = 0;
    for (auto c : p.counts) bytes += c * 4;
    // Measured, float32 (bench/results): on 2 x H200 our streamed one-shot
    // beats NCCL at every size (64 MiB: 198 µs against 274); on 4 x H100 the
    // pushed two-shot beats NCCL called from here (16 / 64 MiB: 92.7 / 339.7
    // µs against 139.3 / 368.5; NCCL's call waits for its end, to bound a lost
    // rank). So Auto takes NCCL only where the GPUs lack peer access, or from
    // WM_AR_NCCL_MIN bytes when that is set.
    if (ncclMin_ < 0) {  // once per communicator: the call is on the small messages' host path
      const char* v = std::getenv("WM_AR_NCCL_MIN");
      ncclMin_ = v && *v ? std::atoll(v) : int64_t{1} << 62;
    }
    // NCCL reduces float32 here: for 16-bit wires our kernels move half the bytes.
    // Ranks sharing a GPU (WM_SHARE_GPU) keep to the peer paths: NCCL refuses them.
    const bool useNccl = p.algo == 3 || (p.algo == 0 && !sharedGpu_ && (!peers || (bytes >= ncclMin_ && p.wire == wm::WireType::F32)) &&
                                         wm::ncclAvailable());
    if (useNccl) {
      auto& n = nccl(env);
      if (peer_) peer_->checkError();
      n.allReduce(p.ins, p.outs, p.counts, 7 /* float32 */, p.mean ? 4 /* avg */ : 0 /* sum */, "allReduce (NCCL)");
      // Bounded: a rank lost mid-call surfaces here, never as a hang later.
      n.wait("allReduce (NCCL)");
      return 2;
    }
    if (!peers)
      throw Napi::Error::New(
          env, "allReduce: the GPUs of this group lack peer access to each other and NCCL is not available (" + wm::ncclStatus() + ")");
    const auto a = static_cast<wm::AllReduceAlgo>(p.algo == 3 ? 0 : p.algo);
    return peer(boot).run(p.ins, p.outs, p.counts, p.wire, p.mean ? 1.f / boot.size() : 1.f, a, p.params, p.lr) ? 1 : 0;
  }
  // allReduceLoop(in, out, count, wire, algo (1 one-shot, 2 two-shot, 3 NCCL), calls) -> µs per call:
  // `calls` all-reduces of one float32 device array queued back to back from C++ and waited for
  // once (bench:allreduce: the GPU's time per call without Node's dispatch; NCCL as a plain
  // ncclAllReduce loop, without the per-call bounded wait the Node path makes). Collective.
  Napi::Value AllReduceLoop(const Napi::CallbackInfo& info) {
    return guarded(info.Env(), [&]() -> Napi::Value {
      auto& boot = comm(info.Env());
      wmnapi::Args args(info, "allReduceLoop");
      const std::vector<uint64_t> in{args.address(0, "input")};
      const std::vector<uint64_t> out{args.address(1, "output")};
      const std::vector<int64_t> count{args.count(2, "count")};
      const int64_t wireCode = args.integer(3, "wire");
      const int64_t algo = args.integer(4, "algo");
      const int64_t calls = args.integer(5, "calls");
      if (wireCode < 0 || wireCode > 2)
        throw Napi::RangeError::New(info.Env(), "allReduceLoop: wire must be 0 (float32), 1 (float16) or 2 (bfloat16)");
      if (algo < 1 || algo > 3)
        throw Napi::RangeError::New(info.Env(),
                                    "allReduceLoop: algo must be 1 (one-shot), 2 (two-shot) or 3 (NCCL), got " + std::to_string(algo));
      if (calls < 1) throw Napi::RangeError::New(info.Env(), "allReduceLoop: calls must be >= 1, got " + std::to_string(calls));
      const auto wire = static_cast<wm::WireType>(wireCode);
      if (algo != 3) {
        if (!peerOk(boot)) throw Napi::Error::New(info.Env(), "allReduceLoop: the GPUs of this group lack peer access to each other");
        peer(boot);
      }
      wm::synchronize();
      boot.barrier("allReduceLoop (start)");
      const auto t0 = std::chrono::steady_clock::now();
      if (algo == 3) {
        auto& n = nccl(info.Env());
        for (int64_t k = 0; k < calls; ++k) n.allReduce(in, out, count, 7 /* float32 */, 0 /* sum */, "allReduceLoop (NCCL)");
        n.wait("allReduceLoop (NCCL)");
      } else {
        for (int64_t k = 0; k < calls; ++k) peer_->run(in, out, count, wire, 1.f, static_cast<wm::AllReduceAlgo>(algo));
        wm::synchronize();
        peer_->checkError();
      }
      const double us = std::chrono::duration<double, std::micro>(std::chrono::steady_clock::now() - t0).count();
      return Napi::Number::New(info.Env(), us / static_cast<double>(calls));
    });
  }
  Napi::Value Allgather(const Napi::CallbackInfo& info) {
    return guarded(info.Env(), [&]() -> Napi::Value {
      wmnapi::Args a(info, "allgather");
      if (!info[0].IsTypedArray() || info[0].As<Napi::TypedArray>().TypedArrayType() != napi_uint8_array)
        a.reject(0, "mine", "must be a Uint8Array");
      auto buf = info[0].As<Napi::Uint8Array>();
      std::string mine(reinterpret_cast<const char*>(buf.Data()), buf.ByteLength());
      std::string what = info[1].IsString() ? info[1].As<Napi::String>().Utf8Value() : "allgather";
      auto all = comm(info.Env()).allgather(mine, what);
      auto out = Napi::Array::New(info.Env(), all.size());
      for (size_t i = 0; i < all.size(); ++i) {
        auto b = Napi::Uint8Array::New(info.Env(), all[i].size());
        std::memcpy(b.Data(), all[i].data(), all[i].size());
        out.Set(static_cast<uint32_t>(i), b);
      }
      return out;
    });
  }
  Napi::Value Barrier(const Napi::CallbackInfo& info) {
    return guarded(info.Env(), [&]() -> Napi::Value {
      if (peer_) peer_->checkError();
      comm(info.Env()).barrier(info[0].IsString() ? info[0].As<Napi::String>().Utf8Value() : "barrier");
      return info.Env().Undefined();
    });
  }
  Napi::Value SetTimeout(const Napi::CallbackInfo& info) {
    return guarded(info.Env(), [&]() -> Napi::Value {
      comm(info.Env()).setTimeoutMs(wmnapi::Args(info, "setTimeout").count(0, "ms"));
      return info.Env().Undefined();
    });
  }
  Napi::Value Destroy(const Napi::CallbackInfo& info) {
    peer_.reset();
    nccl_.reset();
    comm_.reset();
    return info.Env().Undefined();
  }
  Napi::Value Rank(const Napi::CallbackInfo& info) { return Napi::Number::New(info.Env(), comm(info.Env()).rank()); }
  Napi::Value Size(const Napi::CallbackInfo& info) { return Napi::Number::New(info.Env(), comm(info.Env()).size()); }
  Napi::Value SameHost(const Napi::CallbackInfo& info) { return Napi::Boolean::New(info.Env(), comm(info.Env()).sameHost()); }

  std::shared_ptr<wm::Bootstrap> comm_;
  std::unique_ptr<wm::NcclComm> nccl_;
  std::unique_ptr<wm::PeerAllReduce> peer_;
  int peerOk_ = -1;
  bool sharedGpu_ = false;
  int64_t ncclMin_ = -1;  // float32 bytes from which Auto takes NCCL
};

Napi::FunctionReference* communicatorCtor = nullptr;

}  // namespace

// What the host and device WholeMemory wraps share: construction from
// (communicator, type, rows, rowBytes, granularityRows), the freed check, the
// slice accessors and free().
template <typename Derived, typename Memory>
class SlicedMemoryWrap : public Napi::ObjectWrap<Derived> {
 public:
  explicit SlicedMemoryWrap(const Napi::CallbackInfo& info) : Napi::ObjectWrap<Derived>(info) {
    guarded(info.Env(), [&] {
      if (!info[0].IsObject() || !info[0].As<Napi::Object>().InstanceOf(communicatorCtor->Value()))
        wmnapi::Args(info, "WholeMemory").reject(0, "communicator", "must be a NativeCommunicator");
      communicator_ = CommunicatorWrap::Unwrap(info[0].As<Napi::Object>());
      communicatorRef_ = Napi::Persistent(info[0].As<Napi::Object>());
      mem_ = Derived::create(info, communicator_->comm(info.Env()));
      return 0;
    });
  }
  Memory* get() const { return mem_.get(); }

 protected:
  using Wrap = Napi::ObjectWrap<Derived>;
  static Napi::Function defineWith(Napi::Env env, const char* name, std::vector<Napi::ClassPropertyDescriptor<Derived>> props) {
    props.push_back(Wrap::InstanceMethod("free", &SlicedMemoryWrap::Free));
    props.push_back(Wrap::InstanceMethod("readLocal", &SlicedMemoryWrap::ReadLocal));
    props.push_back(Wrap::InstanceMethod("writeLocal", &SlicedMemoryWrap::WriteLocal));
    props.push_back(Wrap::InstanceAccessor("rowsPerRank", &SlicedMemoryWrap::RowsPerRank, nullptr));
    props.push_back(Wrap::InstanceAccessor("localFirstRow", &SlicedMemoryWrap::LocalFirstRow, nullptr));
    props.push_back(Wrap::InstanceAccessor("localRowCount", &SlicedMemoryWrap::LocalRowCount, nullptr));
    return Wrap::DefineClass(env, name, props);
  }
  Memory& mem(const Napi::Env& env) {
    if (!mem_) throw Napi::Error::New(env, "the WholeMemory tensor was freed");
    return *mem_;
  }
  static uint8_t* bytes(const Napi::TypedArray& t) { return wmnapi::typedBytes(t); }
  static wm::MemoryType typeArg(const wmnapi::Args& a) {
    const int64_t t = a.count(1, "type");
    if (t > static_cast<int64_t>(wm::MemoryType::Distributed)) a.reject(1, "type", "is not a WholeMemory type");
    return static_cast<wm::MemoryType>(t);
  }
  // (indices (device int32), n, out/values (device), errorFlag) through the embedding kernels
  static void gatherRows(const wm::TableRef& t, const Napi::CallbackInfo& info) {
    wmnapi::Args a(info, "deviceGather");
    wm::embeddingGather(t, a.address(0, "indices"), wm::IndexType::I32, a.count(1, "n"), a.address(2, "out"), a.address(3, "errorFlag"));
  }
  static void writeRows(const wm::TableRef& t, const Napi::CallbackInfo& info) {
    wmnapi::Args a(info, "deviceScatter");
    wm::embeddingWriteRows(t, a.address(0, "indices"), wm::IndexType::I32, a.count(1, "n"), a.address(2, "values"),
                           a.address(3, "errorFlag"));
    wm::synchronize();
  }
  void dropMemory() { mem_.reset(); }
  CommunicatorWrap* communicator_ = nullptr;

 private:
  Napi::Value Free(const Napi::CallbackInfo& info) {
    mem_.reset();
    return info.Env().Undefined();
  }
  // The rank's own rows, copied out / in (byteLength bytes from the start of its rows).
  Napi::Value ReadLocal(const Napi::CallbackInfo& info) {
    return guarded(info.Env(), [&]() -> Napi::Value {
      auto out = wmnapi::Args(info, "readLocal").typed(0, "out");
      mem(info.Env()).readLocal(bytes(out), out.ByteLength());
      return info.Env().Undefined();
    });
  }
  Napi::Value WriteLocal(const Napi::CallbackInfo& info) {
    return guarded(info.Env(), [&]() -> Napi::Value {
      auto in = wmnapi::Args(info, "writeLocal").typed(0, "values");
      mem(info.Env()).writeLocal(bytes(in), in.ByteLength());
      return info.Env().Undefined();
    });
  }
  Napi::Value RowsPerRank(const Napi::CallbackInfo& info) {
    return Napi::Number::New(info.Env(), static_cast<double>(mem(info.Env()).rowsPerRank()));
  }
  Napi::Value LocalFirstRow(const Napi::CallbackInfo& info) {
    return Napi::Number::New(info.Env(), static_cast<double>(mem(info.Env()).localFirstRow()));
  }
  Napi::Value LocalRowCount(const Napi::CallbackInfo& info) {
    return Napi::Number::New(info.Env(), static_cast<double>(mem(info.Env()).localRowCount()));
  }

  Napi::ObjectReference communicatorRef_;  // the communicator outlives its tensors
  std::unique_ptr<Memory> mem_;
};

// new NativeHostMemory(communicator, type, rows, rowBytes, granularityRows, what = 'malloc')
class HostMemoryWrap : public SlicedMemoryWrap<HostMemoryWrap, wm::HostWholeMemory> {
 public:
  using SlicedMemoryWrap::SlicedMemoryWrap;
  static std::unique_ptr<wm::HostWholeMemory> create(const Napi::CallbackInfo& info, wm::Bootstrap& comm) {
    wmnapi::Args a(info, "NativeHostMemory");
    return std::make_unique<wm::HostWholeMemory>(comm, typeArg(a), a.count(2, "rows"), a.count(3, "rowBytes"),
                                                 a.count(4, "granularityRows"), a.present(5) ? a.string(5, "what") : "malloc");
  }
  static Napi::Function Define(Napi::Env env) {
    return defineWith(env, "NativeHostMemory",
                      {
                          InstanceMethod("gather", &HostMemoryWrap::Gather),
                          InstanceMethod("scatter", &HostMemoryWrap::Scatter),
                          InstanceMethod("sumSlices", &HostMemoryWrap::SumSlices),
                          InstanceMethod("writeLocalAt", &HostMemoryWrap::WriteLocalAt),
                          InstanceMethod("flagBarrier", &HostMemoryWrap::FlagBarrier),
                          InstanceMethod("deviceGather", &HostMemoryWrap::DeviceGather),
                          InstanceMethod("deviceScatter", &HostMemoryWrap::DeviceScatter),
                          InstanceAccessor("deviceAddress", &HostMemoryWrap::DeviceAddress, nullptr),
                      });
  }

 private:
  // gather(indices: Int32Array, out: TypedArray) -> first bad position or -1
  Napi::Value Gather(const Napi::CallbackInfo& info) {
    return guarded(info.Env(), [&]() -> Napi::Value {
      wmnapi::Args a(info, "gather");
      const int64_t n = a.length(0, "indices");
      const int32_t* idx = a.ints(0, "indices", n);
      auto out = a.typed(1, "out");
      if (out.ByteLength() != static_cast<size_t>(n) * static_cast<size_t>(mem(info.Env()).rowBytes()))
        a.reject(1, "out", "must hold indices x row size bytes");
      return Napi::Number::New(info.Env(), static_cast<double>(mem(info.Env()).gatherRows(idx, n, bytes(out))));
    });
  }
  Napi::Value Scatter(const Napi::CallbackInfo& info) {
    return guarded(info.Env(), [&]() -> Napi::Value {
      wmnapi::Args a(info, "scatter");
      const int64_t n = a.length(0, "indices");
      const int32_t* idx = a.ints(0, "indices", n);
      auto in = a.typed(1, "values");
      if (in.ByteLength() != static_cast<size_t>(n) * static_cast<size_t>(mem(info.Env()).rowBytes()))
        a.reject(1, "values", "must hold indices x row size bytes");
      return Napi::Number::New(info.Env(), static_cast<double>(mem(info.Env()).scatterRows(idx, n, bytes(in))));
    });
  }
  // On a GPU: the kernels read and write the shared host memory over the bus
  // (pinned and mapped on first use); same arguments as NativeDeviceMemory's.
  Napi::Value DeviceGather(const Napi::CallbackInfo& info) {
    return guarded(info.Env(), [&]() -> Napi::Value {
      gatherRows(mem(info.Env()).deviceTable(), info);
      return info.Env().Undefined();
    });
  }
  Napi::Value DeviceScatter(const Napi::CallbackInfo& info) {
    return guarded(info.Env(), [&]() -> Napi::Value {
      writeRows(mem(info.Env()).deviceTable(), info);
      return info.Env().Undefined();
    });
  }
  // On a GPU: the one device address of continuous host memory (pinned and mapped on first use).
  Napi::Value DeviceAddress(const Napi::CallbackInfo& info) {
    return guarded(info.Env(), [&]() -> Napi::Value {
      uint64_t p = mem(info.Env()).deviceTable().ptr;
      if (!p) throw Napi::Error::New(info.Env(), "deviceAddress: needs continuous host memory");
      return Napi::Number::New(info.Env(), static_cast<double>(p));
    });
  }
  // writeLocalAt(values: Float32Array, byteOffset, wire = 0): values into this rank's rows from
  // byteOffset on, each rounded to the wire type on the way (see roundToWire; float32 copies).
  Napi::Value WriteLocalAt(const Napi::CallbackInfo& info) {
    return guarded(info.Env(), [&]() -> Napi::Value {
      wmnapi::Args a(info, "writeLocalAt");
      const float* in = a.floats(0, "values", 0);
      const int64_t n = a.length(0, "values");
      const int64_t at = a.count(1, "byteOffset");
      const int64_t wire = a.present(2) ? a.count(2, "wire") : 0;
      if (at % 4 != 0) a.reject(1, "byteOffset", "must be a multiple of 4, got " + std::to_string(at));
      if (wire > 2) a.reject(2, "wire", "must be 0 (float32), 1 (float16) or 2 (bfloat16)");
      uint8_t* dst = mem(info.Env()).localAt(static_cast<size_t>(at), static_cast<size_t>(n) * 4);
      wm::host::roundToWire(in, reinterpret_cast<float*>(dst), n, static_cast<int>(wire));
      return info.Env().Undefined();
    });
  }
  // flagBarrier(epoch, timeoutMs, pids: Int32Array, what): the ranks meet through this
  // memory: an arrival counter and a flag per rank (see wm/flag_barrier.h).
  Napi::Value FlagBarrier(const Napi::CallbackInfo& info) {
    return guarded(info.Env(), [&]() -> Napi::Value {
      auto& m = mem(info.Env());
      if (!m.continuousBase()) throw Napi::Error::New(info.Env(), "flagBarrier: needs continuous memory");
      wmnapi::Args a(info, "flagBarrier");
      const int32_t* pids = a.ints(2, "pids", m.ranks());
      if (a.length(2, "pids") != m.ranks()) a.reject(2, "pids", "must hold one process id per rank");
      wm::flagBarrier(m.continuousBase(), m.ranks(), m.rowsPerRank() * m.rowBytes(), m.rank(), static_cast<uint64_t>(a.count(0, "epoch")),
                      a.count(1, "timeoutMs"), pids, a.string(3, "what"));
      return info.Env().Undefined();
    });
  }
  // sumSlices(scale, out: Float32Array): out = scale * sum of every rank's slice (continuous memory)
  Napi::Value SumSlices(const Napi::CallbackInfo& info) {
    return guarded(info.Env(), [&]() -> Napi::Value {
      auto& m = mem(info.Env());
      wmnapi::Args a(info, "sumSlices");
      float* out = a.floats(1, "out", 0);
      const int64_t n = a.length(1, "out");
      if (!m.continuousBase()) throw Napi::Error::New(info.Env(), "sumSlices: needs continuous memory");
      if (n * 4 > m.rowsPerRank() * m.rowBytes()) a.reject(1, "out", "is longer than a slice");
      wm::host::sumSlices(reinterpret_cast<const float*>(m.continuousBase()), m.ranks(), m.rowsPerRank() * m.rowBytes() / 4, n,
                          static_cast<float>(a.number(0, "scale")), out);
      return info.Env().Undefined();
    });
  }
};

Napi::FunctionReference* deviceMemoryCtor = nullptr;
Napi::FunctionReference* hostMemoryCtor = nullptr;

// new NativeDeviceMemory(communicator, type, rows, rowBytes, granularityRows, devices?: number[])
class DeviceMemoryWrap : public SlicedMemoryWrap<DeviceMemoryWrap, wm::DeviceWholeMemory> {
 public:
  explicit DeviceMemoryWrap(const Napi::CallbackInfo& info) : SlicedMemoryWrap(info) {
    // Distributed memory moves rows through NCCL: bring it up with the tensor
    // (collectively, as the allocation is).
    guarded(info.Env(), [&] {
      if (!get() || get()->type() != wm::MemoryType::Distributed) return 0;
      try {
        communicator_->nccl(info.Env());
      } catch (...) {
        dropMemory();
        throw;
      }
      return 0;
    });
  }
  static std::unique_ptr<wm::DeviceWholeMemory> create(const Napi::CallbackInfo& info, wm::Bootstrap& comm) {
    wmnapi::Args a(info, "NativeDeviceMemory");
    std::vector<int> devices;
    if (a.present(5))
      for (int64_t d : a.dims(5, "devices")) devices.push_back(static_cast<int>(d));
    return std::make_unique<wm::DeviceWholeMemory>(comm, typeArg(a), a.count(2, "rows"), a.count(3, "rowBytes"),
                                                   a.count(4, "granularityRows"), devices);
  }
  static Napi::Function Define(Napi::Env env) {
    return defineWith(env, "NativeDeviceMemory",
                      {
                          InstanceMethod("gather", &DeviceMemoryWrap::Gather),
                          InstanceMethod("scatter", &DeviceMemoryWrap::Scatter),
                          InstanceAccessor("address", &DeviceMemoryWrap::Address, nullptr),
                      });
  }

 private:
  // gather(indices (device int32), n, out (device), errorFlag)
  Napi::Value Gather(const Napi::CallbackInfo& info) {
    return guarded(info.Env(), [&]() -> Napi::Value {
      auto& m = mem(info.Env());
      if (m.type() == wm::MemoryType::Distributed) {
        wmnapi::Args a(info, "gather");
        wm::distributedGather(communicator_->nccl(info.Env()), m.distributedLayout(), a.address(0, "indices"), a.count(1, "n"),
                              a.address(2, "out"), "gather");
        return info.Env().Undefined();
      }
      gatherRows(m.table(), info);
      return info.Env().Undefined();
    });
  }
  // scatter(indices (device int32), n, values (device), errorFlag); returns once written
  Napi::Value Scatter(const Napi::CallbackInfo& info) {
    return guarded(info.Env(), [&]() -> Napi::Value {
      auto& m = mem(info.Env());
      if (m.type() == wm::MemoryType::Distributed) {
        wmnapi::Args a(info, "scatter");
        wm::distributedScatter(communicator_->nccl(info.Env()), m.distributedLayout(), a.address(0, "indices"), a.count(1, "n"),
                               a.address(2, "values"), "scatter");
        return info.Env().Undefined();
      }
      writeRows(m.table(), info);
      return info.Env().Undefined();
    });
  }
  // The one device address of continuous memory (0 for chunked) and of this rank's slice.
  Napi::Value Address(const Napi::CallbackInfo& info) {
    return Napi::Number::New(info.Env(), static_cast<double>(mem(info.Env()).table().ptr));
  }
};

wm::DeviceWholeMemory* unwrapDeviceMemory(const Napi::Value& v) {
  if (!v.IsObject()) return nullptr;
  Napi::Object o = v.As<Napi::Object>();
  if (!o.InstanceOf(deviceMemoryCtor->Value())) return nullptr;
  auto* w = DeviceMemoryWrap::Unwrap(o);
  if (!w->get()) throw Napi::Error::New(v.Env(), "the WholeMemory tensor was freed");
  return w->get();
}

namespace {

Napi::Value UniqueId(const Napi::CallbackInfo& info) {
  return guarded(info.Env(), [&]() -> Napi::Value {
    wmnapi::Args a(info, "bootstrapUniqueId");
    std::string host = a.string(0, "host");
    const int64_t port = a.count(1, "port");
    if (port > 65535) a.reject(1, "port", "must be at most 65535");
    std::string nonce = a.present(2) ? a.string(2, "nonce") : "";
    std::string secret = a.present(3) ? a.string(3, "secretHex") : "";
    return Napi::String::New(info.Env(), wm::bootstrapUniqueId(host, static_cast<int>(port), nonce, secret));
  });
}

}  // namespace

// The NCCL communicator of a NativeCommunicator (made on first use, collectively).
wm::NcclComm& ncclOfCommunicator(const Napi::Value& v) {
  if (!v.IsObject() || !v.As<Napi::Object>().InstanceOf(communicatorCtor->Value()))
    throw Napi::TypeError::New(v.Env(), "expected a communicator");
  return CommunicatorWrap::Unwrap(v.As<Napi::Object>())->nccl(v.Env());
}

wm::HostWholeMemory* unwrapHostMemory(const Napi::Value& v) {
  if (!v.IsObject() || !v.As<Napi::Object>().InstanceOf(hostMemoryCtor->Value())) return nullptr;
  auto* w = HostMemoryWrap::Unwrap(v.As<Napi::Object>());
  if (!w || !w->get()) throw Napi::Error::New(v.Env(), "the WholeMemory tensor was freed");
  return w->get();
}

void InitComm(Napi::Env env, Napi::Object exports) {
  exports.Set("bootstrapUniqueId", Napi::Function::New(env, UniqueId, "bootstrapUniqueId"));
  exports.Set("ncclStatus", Napi::Function::New(
                                env,
                                [](const Napi::CallbackInfo& info) -> Napi::Value {
                                  return Napi::String::New(info.Env(),
                                                           wm::ncclAvailable() ? wm::ncclStatus() : "unavailable: " + wm::ncclStatus());
                                },
                                "ncclStatus"));
  Napi::Function comm = CommunicatorWrap::Define(env);
  communicatorCtor = new Napi::FunctionReference(Napi::Persistent(comm));
  exports.Set("NativeCommunicator", comm);
  Napi::Function hostMemory = HostMemoryWrap::Define(env);
  hostMemoryCtor = new Napi::FunctionReference(Napi::Persistent(hostMemory));
  exports.Set("NativeHostMemory", hostMemory);
  Napi::Function deviceMemory = DeviceMemoryWrap::Define(env);
  deviceMemoryCtor = new Napi::FunctionReference(Napi::Persistent(deviceMemory));
  exports.Set("NativeDeviceMemory", deviceMemory);
}
