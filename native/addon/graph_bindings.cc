// N-API bindings of the graph operations (wm/graph_ops.h): device versions
// take addresses, host versions typed arrays.
#include <napi.h>

#include <algorithm>
#include <string>

#include "int32_source.h"
#include "napi_util.h"
#include "wm/graph_ops.h"
#include "wm/random_walk.h"

namespace {

using wmnapi::guarded;

uint64_t ptr(const Napi::CallbackInfo& info, int i) { return static_cast<uint64_t>(info[i].As<Napi::Number>().DoubleValue()); }
int64_t num(const Napi::CallbackInfo& info, int i) { return info[i].As<Napi::Number>().Int64Value(); }
template <typename A>
auto* dataOrNull(const Napi::Value& v) {
  return v.IsTypedArray() ? v.As<A>().Data() : nullptr;
}

// uniqueInt32(x, n, values, inverse) -> count
Napi::Value Unique(const Napi::CallbackInfo& info) {
  return guarded(info.Env(), [&]() -> Napi::Value {
    return Napi::Number::New(info.Env(), static_cast<double>(wm::uniqueInt32(ptr(info, 0), num(info, 1), ptr(info, 2), ptr(info, 3))));
  });
}
// relabelVertices(dst, nDst, ids, nIds, numVertices, map, values, neighbors) -> count
Napi::Value Relabel(const Napi::CallbackInfo& info) {
  return guarded(info.Env(), [&]() -> Napi::Value {
    return Napi::Number::New(info.Env(), static_cast<double>(wm::relabelVertices(ptr(info, 0), num(info, 1), ptr(info, 2), num(info, 3), num(info, 4),
                                                                                 ptr(info, 5), ptr(info, 6), ptr(info, 7))));
  });
}
// hostUniqueInt32(x, values, inverse) -> count
Napi::Value HostUnique(const Napi::CallbackInfo& info) {
  return guarded(info.Env(), [&]() -> Napi::Value {
    auto x = info[0].As<Napi::Int32Array>(), values = info[1].As<Napi::Int32Array>(), inverse = info[2].As<Napi::Int32Array>();
    if (values.ElementLength() < x.ElementLength() || inverse.ElementLength() != x.ElementLength())
      throw Napi::RangeError::New(info.Env(), "unique: values and inverse must hold as many entries as x");
    return Napi::Number::New(info.Env(), static_cast<double>(wm::host::uniqueInt32(x.Data(), x.ElementLength(), values.Data(), inverse.Data())));
  });
}
// csrSpmm(rowPtr, colIdx, weight | 0, rowScale | 0, numRows, x, dim, out, splits | 0, numLong, numChunks, chunkEntries)
Napi::Value Spmm(const Napi::CallbackInfo& info) {
  return guarded(info.Env(), [&]() -> Napi::Value {
    wm::csrSpmm(ptr(info, 0), ptr(info, 1), ptr(info, 2), ptr(info, 3), num(info, 4), ptr(info, 5), num(info, 6), ptr(info, 7),
                ptr(info, 8), num(info, 9), num(info, 10), num(info, 11));
    return info.Env().Undefined();
  });
}
// neighborMean(neighbors, numRows, fanout, x, dim, out)
Napi::Value NeighborMean(const Napi::CallbackInfo& info) {
  return guarded(info.Env(), [&]() -> Napi::Value {
    wm::neighborMean(ptr(info, 0), num(info, 1), num(info, 2), ptr(info, 3), num(info, 4), ptr(info, 5));
    return info.Env().Undefined();
  });
}
// neighborMeanGrad(neighbors, numRows, fanout, dy, dim, dx, numInputs)
Napi::Value NeighborMeanGrad(const Napi::CallbackInfo& info) {
  return guarded(info.Env(), [&]() -> Napi::Value {
    wm::neighborMeanGrad(ptr(info, 0), num(info, 1), num(info, 2), ptr(info, 3), num(info, 4), ptr(info, 5), num(info, 6));
    return info.Env().Undefined();
  });
}
// hostCsrSpmm(rowPtr, colIdx, weight | null, rowScale | null, x, dim, out)
Napi::Value HostSpmm(const Napi::CallbackInfo& info) {
  return guarded(info.Env(), [&]() -> Napi::Value {
    auto rowPtr = info[0].As<Napi::Int32Array>(), colIdx = info[1].As<Napi::Int32Array>();
    auto x = info[4].As<Napi::Float32Array>(), out = info[6].As<Napi::Float32Array>();
    int64_t numRows = static_cast<int64_t>(rowPtr.ElementLength()) - 1, dim = num(info, 5);
    if (numRows < 0 || static_cast<int64_t>(out.ElementLength()) != numRows * dim)
      throw Napi::RangeError::New(info.Env(), "csrSpmm: out must hold rows x dim entries");
    wm::host::csrSpmm(rowPtr.Data(), colIdx.Data(), dataOrNull<Napi::Float32Array>(info[2]), dataOrNull<Napi::Float32Array>(info[3]),
                      numRows, x.Data(), dim, out.Data());
    return info.Env().Undefined();
  });
}
// negativePairs(rowPtr, colIdx, numVertices, count, seed, src, dst) -> pairs that exhausted their tries
Napi::Value Negative(const Napi::CallbackInfo& info) {
  return guarded(info.Env(), [&]() -> Napi::Value {
    return Napi::Number::New(info.Env(), static_cast<double>(wm::negativePairs(ptr(info, 0), ptr(info, 1), num(info, 2), num(info, 3),
                                                                               static_cast<uint64_t>(num(info, 4)), ptr(info, 5), ptr(info, 6))));
  });
}
// hostNegativePairs(rowPtr, colIdx, seed, src, dst) -> pairs that exhausted their tries
Napi::Value HostNegative(const Napi::CallbackInfo& info) {
  return guarded(info.Env(), [&]() -> Napi::Value {
    auto rowPtr = info[0].As<Napi::Int32Array>(), colIdx = info[1].As<Napi::Int32Array>();
    auto src = info[3].As<Napi::Int32Array>(), dst = info[4].As<Napi::Int32Array>();
    if (src.ElementLength() != dst.ElementLength()) throw Napi::RangeError::New(info.Env(), "negativePairs: src and dst differ in length");
    return Napi::Number::New(info.Env(), static_cast<double>(wm::host::negativePairs(
        rowPtr.Data(), colIdx.Data(), static_cast<int64_t>(colIdx.ElementLength()), static_cast<int64_t>(rowPtr.ElementLength()) - 1, src.ElementLength(),
        static_cast<uint64_t>(num(info, 2)), src.Data(), dst.Data())));
  });
}

// The walk bias from {back, near, far, uniform} (random_walk.ts computes it).
wm::WalkBias walkBias(const Napi::Value& v) {
  auto o = v.As<Napi::Object>();
  auto f = [&](const char* k) { return static_cast<float>(o.Get(k).As<Napi::Number>().DoubleValue()); };
  return {f("back"), f("near"), f("far"), o.Get("uniform").ToBoolean()};
}
// randomWalks(rowPtr, colIdx, numVertices, starts, n, length, seed, bias, out, errorFlag)
Napi::Value Walks(const Napi::CallbackInfo& info) {
  return guarded(info.Env(), [&]() -> Napi::Value {
    wm::randomWalks(ptr(info, 0), ptr(info, 1), num(info, 2), ptr(info, 3), num(info, 4), static_cast<int>(num(info, 5)),
                    static_cast<uint64_t>(num(info, 6)), walkBias(info[7]), ptr(info, 8), ptr(info, 9));
    return info.Env().Undefined();
  });
}
// hostRandomWalks(rowPtr, colIdx, starts, length, seed, bias, out) -> first bad start or -1
Napi::Value HostWalks(const Napi::CallbackInfo& info) {
  return guarded(info.Env(), [&]() -> Napi::Value {
    Int32Source rowPtr = int32Source(info, 0, "rowPtr"), colIdx = int32Source(info, 1, "colIdx");
    auto starts = info[2].As<Napi::Int32Array>(), out = info[6].As<Napi::Int32Array>();
    int64_t length = num(info, 3);
    if (static_cast<int64_t>(out.ElementLength()) != static_cast<int64_t>(starts.ElementLength()) * length)
      throw Napi::RangeError::New(info.Env(), "randomWalks: out must hold starts x length entries");
    return Napi::Number::New(info.Env(), static_cast<double>(wm::host::randomWalks(
        rowPtr.data, colIdx.data, colIdx.length, rowPtr.length - 1, starts.Data(), starts.ElementLength(), static_cast<int>(length),
        static_cast<uint64_t>(num(info, 4)), walkBias(info[5]), out.Data())));
  });
}

// walkPairs(walks, n, length, window, center, context)
Napi::Value Pairs(const Napi::CallbackInfo& info) {
  return guarded(info.Env(), [&]() -> Napi::Value {
    wm::walkPairs(ptr(info, 0), num(info, 1), static_cast<int>(num(info, 2)), static_cast<int>(num(info, 3)), ptr(info, 4), ptr(info, 5));
    return info.Env().Undefined();
  });
}
// hostWalkPairs(walks, length, window, center, context)
Napi::Value HostPairs(const Napi::CallbackInfo& info) {
  return guarded(info.Env(), [&]() -> Napi::Value {
    auto walks = info[0].As<Napi::Int32Array>(), center = info[3].As<Napi::Int32Array>(), context = info[4].As<Napi::Int32Array>();
    const int64_t length = num(info, 1), window = num(info, 2);
    if (length < 1 || walks.ElementLength() % length != 0) throw Napi::RangeError::New(info.Env(), "walkPairs: walks must hold n x length entries");
    const int64_t n = static_cast<int64_t>(walks.ElementLength()) / length;
    const int64_t total = wm::walkPairCount(n, static_cast<int>(length), static_cast<int>(window));
    if (static_cast<int64_t>(center.ElementLength()) != total || static_cast<int64_t>(context.ElementLength()) != total)
      throw Napi::RangeError::New(info.Env(), "walkPairs: center and context must hold " + std::to_string(total) + " entries");
    wm::host::walkPairs(walks.Data(), n, static_cast<int>(length), static_cast<int>(window), center.Data(), context.Data());
    return info.Env().Undefined();
  });
}
// randomVertices(count, numVertices, seed, out)
Napi::Value Vertices(const Napi::CallbackInfo& info) {
  return guarded(info.Env(), [&]() -> Napi::Value {
    wm::randomVertices(num(info, 0), num(info, 1), static_cast<uint64_t>(num(info, 2)), ptr(info, 3));
    return info.Env().Undefined();
  });
}
// hostRandomVertices(numVertices, seed, out)
Napi::Value HostVertices(const Napi::CallbackInfo& info) {
  return guarded(info.Env(), [&]() -> Napi::Value {
    auto out = info[2].As<Napi::Int32Array>();
    wm::host::randomVertices(out.ElementLength(), num(info, 0), static_cast<uint64_t>(num(info, 1)), out.Data());
    return info.Env().Undefined();
  });
}

// hostBuildCsr(numVertices, src, dst, symmetric) -> {rowPtr: Int32Array, colIdx: Int32Array}
Napi::Value HostBuildCsr(const Napi::CallbackInfo& info) {
  return guarded(info.Env(), [&]() -> Napi::Value {
    auto src = info[1].As<Napi::Int32Array>(), dst = info[2].As<Napi::Int32Array>();
    if (src.ElementLength() != dst.ElementLength()) throw Napi::RangeError::New(info.Env(), "fromEdges: src and dst differ in length");
    wm::host::CsrArrays c = wm::host::buildCsr(num(info, 0), src.Data(), dst.Data(), src.ElementLength(), info[3].ToBoolean());
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

// hostRmat(scale, a, b, c, seed, permute, src, dst): fills src/dst (m entries each)
Napi::Value HostRmat(const Napi::CallbackInfo& info) {
  return guarded(info.Env(), [&]() -> Napi::Value {
    auto src = info[6].As<Napi::Int32Array>(), dst = info[7].As<Napi::Int32Array>();
    if (src.ElementLength() != dst.ElementLength()) throw Napi::RangeError::New(info.Env(), "rmat: src and dst differ in length");
    wm::host::rmatEdges(static_cast<int>(num(info, 0)), static_cast<int64_t>(src.ElementLength()), info[1].As<Napi::Number>().DoubleValue(),
                        info[2].As<Napi::Number>().DoubleValue(), info[3].As<Napi::Number>().DoubleValue(),
                        static_cast<uint32_t>(static_cast<int64_t>(info[4].As<Napi::Number>().DoubleValue())), info[5].ToBoolean(),
                        src.Data(), dst.Data());
    return info.Env().Undefined();
  });
}

}  // namespace

void InitGraph(Napi::Env env, Napi::Object exports) {
  exports.Set("uniqueInt32", Napi::Function::New(env, Unique, "uniqueInt32"));
  exports.Set("relabelVertices", Napi::Function::New(env, Relabel, "relabelVertices"));
  exports.Set("hostUniqueInt32", Napi::Function::New(env, HostUnique, "hostUniqueInt32"));
  exports.Set("csrSpmm", Napi::Function::New(env, Spmm, "csrSpmm"));
  exports.Set("neighborMean", Napi::Function::New(env, NeighborMean, "neighborMean"));
  exports.Set("neighborMeanGrad", Napi::Function::New(env, NeighborMeanGrad, "neighborMeanGrad"));
  exports.Set("hostCsrSpmm", Napi::Function::New(env, HostSpmm, "hostCsrSpmm"));
  exports.Set("negativePairs", Napi::Function::New(env, Negative, "negativePairs"));
  exports.Set("hostNegativePairs", Napi::Function::New(env, HostNegative, "hostNegativePairs"));
  exports.Set("randomWalks", Napi::Function::New(env, Walks, "randomWalks"));
  exports.Set("hostRandomWalks", Napi::Function::New(env, HostWalks, "hostRandomWalks"));
  exports.Set("walkPairs", Napi::Function::New(env, Pairs, "walkPairs"));
  exports.Set("hostWalkPairs", Napi::Function::New(env, HostPairs, "hostWalkPairs"));
  exports.Set("randomVertices", Napi::Function::New(env, Vertices, "randomVertices"));
  exports.Set("hostRandomVertices", Napi::Function::New(env, HostVertices, "hostRandomVertices"));
  exports.Set("hostBuildCsr", Napi::Function::New(env, HostBuildCsr, "hostBuildCsr"));
  exports.Set("hostRmat", Napi::Function::New(env, HostRmat, "hostRmat"));
}
