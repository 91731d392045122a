// Bindings of the graph operations whose CSR may be host WholeMemory (an
// object, which the op table's readers do not take): sampling, walks, and
// building a CSR. Seeds or starts in a typed array run the host version;
// device addresses the CUDA one. Both return or record the first bad seed.
#include <napi.h>

#include <algorithm>
#include <string>

#include "napi_args.h"
#include "wm/graph_ops.h"
#include "wm/host_whole_memory.h"
#include "wm/random_walk.h"
#include "wm/sampling.h"

wm::HostWholeMemory* unwrapHostMemory(const Napi::Value& v);  // comm_bindings.cc

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

// The host CSR: rowPtr [numVertices + 1] and colIdx (its length is nnz).
struct HostCsr {
  Int32Source rowPtr, colIdx;
  HostCsr(const Args& a, int64_t numVertices) : rowPtr(int32Source(a, 0, "rowPtr")), colIdx(int32Source(a, 1, "colIdx")) {
    if (rowPtr.length != numVertices + 1) a.reject(0, "rowPtr", "must hold numVertices + 1 entries");
  }
};

// sampleWithReplacement(rowPtr, colIdx, numVertices, seeds, n, fanout, seed, out, errorFlag, keyByVertex?)
//   -> on the host, the first bad seed's position or -1
Napi::Value SampleWithReplacement(const Napi::CallbackInfo& info) {
  return guarded(info.Env(), [&]() -> Napi::Value {
    Args a(info, "sampleWithReplacement");
    const int64_t numVertices = a.count(2, "numVertices"), n = a.count(4, "n");
    const int fanout = static_cast<int>(a.count(5, "fanout"));
    const uint64_t seed = static_cast<uint64_t>(a.count(6, "seed"));
    const bool byVertex = a.flag(9, "keyByVertex");
    if (a[3].IsTypedArray()) {
      const HostCsr g(a, numVertices);
      return Napi::Number::New(info.Env(), static_cast<double>(wm::host::sampleWithReplacement(
                                               g.rowPtr.data, g.colIdx.data, g.colIdx.length, numVertices, a.ints(3, "seeds", n), n, fanout,
                                               seed, a.ints(7, "out", n * fanout), byVertex)));
    }
    wm::sampleWithReplacement(a.address(0, "rowPtr"), a.address(1, "colIdx"), numVertices, a.address(3, "seeds"), n, fanout, seed,
                              a.address(7, "out"), a.address(8, "errorFlag"), byVertex);
    return info.Env().Undefined();
  });
}

// sampleWithoutReplacement(rowPtr, colIdx, numVertices, seeds, n, fanout, seed, offsets, out | null, errorFlag, keyByVertex?)
//   -> on the host, the first bad seed's position or -1 (out null: offsets only)
Napi::Value SampleWithoutReplacement(const Napi::CallbackInfo& info) {
  return guarded(info.Env(), [&]() -> Napi::Value {
    Args a(info, "sampleWithoutReplacement");
    const int64_t numVertices = a.count(2, "numVertices"), n = a.count(4, "n");
    const int fanout = static_cast<int>(a.count(5, "fanout"));
    const uint64_t seed = static_cast<uint64_t>(a.count(6, "seed"));
    const bool byVertex = a.flag(10, "keyByVertex");
    if (a[3].IsTypedArray()) {
      const HostCsr g(a, numVertices);
      int32_t* offsets = a.ints(7, "offsets", n + 1);
      int32_t* out = a.present(8) ? a.ints(8, "out", 0) : nullptr;
      return Napi::Number::New(info.Env(), static_cast<double>(wm::host::sampleWithoutReplacement(
                                               g.rowPtr.data, g.colIdx.data, g.colIdx.length, numVertices, a.ints(3, "seeds", n), n, fanout,
                                               seed, offsets, out, byVertex)));
    }
    wm::sampleWithoutReplacement(a.address(0, "rowPtr"), a.address(1, "colIdx"), numVertices, a.address(3, "seeds"), n, fanout, seed,
                                 a.address(7, "offsets"), a.address(8, "out"), a.address(9, "errorFlag"), byVertex);
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

// randomWalks(rowPtr, colIdx, numVertices, starts, n, length, seed, bias, out, errorFlag)
//   -> on the host, the first bad start's position or -1
Napi::Value RandomWalks(const Napi::CallbackInfo& info) {
  return guarded(info.Env(), [&]() -> Napi::Value {
    Args a(info, "randomWalks");
    const int64_t numVertices = a.count(2, "numVertices"), n = a.count(4, "n"), length = a.count(5, "length");
    const uint64_t seed = static_cast<uint64_t>(a.count(6, "seed"));
    const wm::WalkBias bias = walkBias(a, 7);
    if (a[3].IsTypedArray()) {
      const HostCsr g(a, numVertices);
      return Napi::Number::New(info.Env(), static_cast<double>(wm::host::randomWalks(
                                               g.rowPtr.data, g.colIdx.data, g.colIdx.length, numVertices, a.ints(3, "starts", n), n,
                                               static_cast<int>(length), seed, bias, a.ints(8, "out", n * length))));
    }
    wm::randomWalks(a.address(0, "rowPtr"), a.address(1, "colIdx"), numVertices, a.address(3, "starts"), n, static_cast<int>(length), seed,
                    bias, a.address(8, "out"), a.address(9, "errorFlag"));
    return info.Env().Undefined();
  });
}

// buildCsr(numVertices, src, dst, symmetric) -> {rowPtr: Int32Array, colIdx: Int32Array} (host only: it allocates its result)
Napi::Value BuildCsr(const Napi::CallbackInfo& info) {
  return guarded(info.Env(), [&]() -> Napi::Value {
    Args a(info, "buildCsr");
    const int64_t m = a.length(1, "src");
    wm::host::CsrArrays c =
        wm::host::buildCsr(a.count(0, "numVertices"), a.ints(1, "src", m), a.ints(2, "dst", m), m, a.flag(3, "symmetric"));
    auto rowPtr = Napi::Int32Array::New(info.Env(), c.rowPtr.size());
    for (size_t i = 0; i < c.rowPtr.size(); ++i) rowPtr[i] = static_cast<int32_t>(c.rowPtr[i]);
    auto colIdx = Napi::Int32Array::New(info.Env(), c.colIdx.size());
    std::copy(c.colIdx.begin(), c.colIdx.end(), colIdx.Data());
    auto out = Napi::Object::New(info.Env());
    out.Set("rowPtr", rowPtr);
    out.Set("colIdx", colIdx);
    return out;
  });
}

}  // namespace

void InitGraph(Napi::Env env, Napi::Object exports) {
  exports.Set("sampleWithReplacement", Napi::Function::New(env, SampleWithReplacement, "sampleWithReplacement"));
  exports.Set("sampleWithoutReplacement", Napi::Function::New(env, SampleWithoutReplacement, "sampleWithoutReplacement"));
  exports.Set("randomWalks", Napi::Function::New(env, RandomWalks, "randomWalks"));
  exports.Set("buildCsr", Napi::Function::New(env, BuildCsr, "buildCsr"));
}
