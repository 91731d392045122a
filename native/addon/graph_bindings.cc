// Bindings of the graph operations whose CSR may be an object (host
// WholeMemory, a NativeGraph), which the op table's readers do not take:
// sampling and walks. Seeds or starts in a typed array run
// the host version; device addresses the CUDA one. Both return or record the
// first bad seed. Row offsets are int32 (graphs from JavaScript arrays) or
// int64 (a NativeGraph, a BigInt64Array; on the GPU, wideOffsets).
#include <napi.h>

#include <algorithm>
#include <string>

#include "napi_args.h"
#include "wm/graph_ops.h"
#include "wm/host_whole_memory.h"
#include "wm/native_graph.h"
#include "wm/op_timing.h"
#include "wm/random_walk.h"
#include "wm/sampling.h"

wm::HostWholeMemory* unwrapHostMemory(const Napi::Value& v);           // comm_bindings.cc
const wm::host::NativeGraph* unwrapNativeGraph(const Napi::Value& v);  // native_graph_bindings.cc

namespace {

using wmnapi::Args;
using wmnapi::guarded;

struct Int32Source {
  const int32_t* data;
  int64_t length;
};

// An Int32Array, or continuous int32 host WholeMemory (a graph every process of a host shares) read in place.
Int32Source int32Source(const Args& a, size_t i, const char* name) {
  if (a[i].IsTypedArray()) {
    const int32_t* p = a.ints(i, name, 0);
    return {p, a.length(i, name)};
  }
  wm::HostWholeMemory* m = a[i].IsObject() ? unwrapHostMemory(a[i]) : nullptr;
  if (!m || !m->continuousBase() || m->rowBytes() != 4) a.reject(i, name, "must be an Int32Array or continuous int32 host WholeMemory");
  return {reinterpret_cast<const int32_t*>(m->continuousBase()), m->rows()};
}

// The host CSR: a NativeGraph in place of rowPtr (colIdx then unused), or rowPtr [numVertices + 1]
// (int32 source, BigInt64Array, or continuous host WholeMemory of 8-byte rows: int64 offsets) and
// colIdx (its length is nnz).
struct HostCsr {
  const int32_t* rowPtr32 = nullptr;
  const int64_t* rowPtr64 = nullptr;
  const int32_t* colIdx = nullptr;
  int64_t nnz = 0;

  HostCsr(const Args& a, int64_t numVertices) {
    if (const wm::host::NativeGraph* g = unwrapNativeGraph(a[0])) {
      if (g->numVertices() != numVertices) a.reject(2, "numVertices", "must be the graph's " + std::to_string(g->numVertices()));
      rowPtr64 = g->rowPtr();
      colIdx = g->colIdx();
      nnz = g->numEdges();
      return;
    }
    const Int32Source c = int32Source(a, 1, "colIdx");
    colIdx = c.data;
    nnz = c.length;
    if (a.kind(0) == Args::Kind::Typed && a.rawTyped(0).element == Args::Element::BigInt64) {
      if (a.rawTyped(0).length != numVertices + 1) a.reject(0, "rowPtr", "must hold numVertices + 1 entries");
      rowPtr64 = static_cast<const int64_t*>(a.rawTyped(0).data);
      return;
    }
    if (wm::HostWholeMemory* m = unwrapHostMemory(a[0]); m && m->continuousBase() && m->rowBytes() == 8) {
      if (m->rows() != numVertices + 1) a.reject(0, "rowPtr", "must hold numVertices + 1 entries");
      rowPtr64 = reinterpret_cast<const int64_t*>(m->continuousBase());
      return;
    }
    const Int32Source r = int32Source(a, 0, "rowPtr");
    if (r.length != numVertices + 1) a.reject(0, "rowPtr", "must hold numVertices + 1 entries");
    rowPtr32 = r.data;
  }

  // f(rowPtr) with the offsets' own type.
  template <typename F>
  auto visit(F&& f) const {
    return rowPtr64 ? f(rowPtr64) : f(rowPtr32);
  }
};

// sampleWithReplacement(rowPtr, colIdx, numVertices, seeds, n, fanout, seed, out, errorFlag, keyByVertex?, wideOffsets?)
//   -> on the host, the first bad seed's position or -1
Napi::Value SampleWithReplacement(const Napi::CallbackInfo& info) {
  return guarded(info.Env(), [&]() -> Napi::Value {
    Args a(info, "sampleWithReplacement");
    const bool onHost = a[3].IsTypedArray();
    const wm::OpTimer timer("sampleWithReplacement", !onHost);
    const int64_t numVertices = a.count(2, "numVertices"), n = a.count(4, "n");
    const int fanout = static_cast<int>(a.count(5, "fanout"));
    const uint64_t seed = static_cast<uint64_t>(a.count(6, "seed"));
    const bool byVertex = a.flag(9, "keyByVertex");
    if (onHost) {
      const HostCsr g(a, numVertices);
      const int32_t* seeds = a.ints(3, "seeds", n);
      int32_t* out = a.ints(7, "out", n * fanout);
      return Napi::Number::New(info.Env(), static_cast<double>(g.visit([&](auto rowPtr) {
                                 return wm::host::sampleWithReplacement(rowPtr, g.colIdx, g.nnz, numVertices, seeds, n, fanout, seed, out,
                                                                        byVertex);
                               })));
    }
    wm::sampleWithReplacement(a.address(0, "rowPtr"), a.address(1, "colIdx"), numVertices, a.address(3, "seeds"), n, fanout, seed,
                              a.address(7, "out"), a.address(8, "errorFlag"), byVertex, a.flag(10, "wideOffsets"));
    return info.Env().Undefined();
  });
}

// sampleWithoutReplacement(rowPtr, colIdx, numVertices, seeds, n, fanout, seed, offsets, out | null, errorFlag, keyByVertex?, wideOffsets?)
//   -> on the host, the first bad seed's position or -1 (out null: offsets only)
Napi::Value SampleWithoutReplacement(const Napi::CallbackInfo& info) {
  return guarded(info.Env(), [&]() -> Napi::Value {
    Args a(info, "sampleWithoutReplacement");
    const bool onHost = a[3].IsTypedArray();
    const wm::OpTimer timer("sampleWithoutReplacement", !onHost);
    const int64_t numVertices = a.count(2, "numVertices"), n = a.count(4, "n");
    const int fanout = static_cast<int>(a.count(5, "fanout"));
    const uint64_t seed = static_cast<uint64_t>(a.count(6, "seed"));
    const bool byVertex = a.flag(10, "keyByVertex");
    if (onHost) {
      const HostCsr g(a, numVertices);
      const int32_t* seeds = a.ints(3, "seeds", n);
      int32_t* offsets = a.ints(7, "offsets", n + 1);
      int32_t* out = a.present(8) ? a.ints(8, "out", 0) : nullptr;
      return Napi::Number::New(info.Env(), static_cast<double>(g.visit([&](auto rowPtr) {
                                 return wm::host::sampleWithoutReplacement(rowPtr, g.colIdx, g.nnz, numVertices, seeds, n, fanout, seed,
                                                                           offsets, out, byVertex);
                               })));
    }
    wm::sampleWithoutReplacement(a.address(0, "rowPtr"), a.address(1, "colIdx"), numVertices, a.address(3, "seeds"), n, fanout, seed,
                                 a.address(7, "offsets"), a.address(8, "out"), a.address(9, "errorFlag"), byVertex,
                                 a.flag(11, "wideOffsets"));
    return info.Env().Undefined();
  });
}

// The walk bias from {back, near, far, uniform} (random_walk.ts computes it).
wm::WalkBias walkBias(const Args& a, size_t i) {
  auto o = a.object(i, "bias");
  auto f = [&](const char* k) {
    const Napi::Value v = o.Get(k);
    if (!v.IsNumber()) a.reject(i, "bias", std::string("must have a number ") + k);
    return static_cast<float>(v.As<Napi::Number>().DoubleValue());
  };
  return {f("back"), f("near"), f("far"), o.Get("uniform").ToBoolean()};
}

// randomWalks(rowPtr, colIdx, numVertices, starts, n, length, seed, bias, out, errorFlag, wideOffsets?)
//   -> on the host, the first bad start's position or -1
Napi::Value RandomWalks(const Napi::CallbackInfo& info) {
  return guarded(info.Env(), [&]() -> Napi::Value {
    Args a(info, "randomWalks");
    const bool onHost = a[3].IsTypedArray();
    const wm::OpTimer timer("randomWalks", !onHost);
    const int64_t numVertices = a.count(2, "numVertices"), n = a.count(4, "n"), length = a.count(5, "length");
    const uint64_t seed = static_cast<uint64_t>(a.count(6, "seed"));
    const wm::WalkBias bias = walkBias(a, 7);
    if (onHost) {
      const HostCsr g(a, numVertices);
      const int32_t* starts = a.ints(3, "starts", n);
      int32_t* out = a.ints(8, "out", n * length);
      return Napi::Number::New(info.Env(), static_cast<double>(g.visit([&](auto rowPtr) {
                                 return wm::host::randomWalks(rowPtr, g.colIdx, g.nnz, numVertices, starts, n, static_cast<int>(length),
                                                              seed, bias, out);
                               })));
    }
    wm::randomWalks(a.address(0, "rowPtr"), a.address(1, "colIdx"), numVertices, a.address(3, "starts"), n, static_cast<int>(length), seed,
                    bias, a.address(8, "out"), a.address(9, "errorFlag"), a.flag(10, "wideOffsets"));
    return info.Env().Undefined();
  });
}

}  // namespace

void InitGraph(Napi::Env env, Napi::Object exports) {
  exports.Set("sampleWithReplacement", Napi::Function::New(env, SampleWithReplacement, "sampleWithReplacement"));
  exports.Set("sampleWithoutReplacement", Napi::Function::New(env, SampleWithoutReplacement, "sampleWithoutReplacement"));
  exports.Set("randomWalks", Napi::Function::New(env, RandomWalks, "randomWalks"));
}
