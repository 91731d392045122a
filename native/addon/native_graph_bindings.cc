// The NativeGraph class (wm/native_graph.h): a CSR with int64 offsets kept in
// native memory, made by graphFromEdges / graphRmat / graphLoad. JavaScript
// holds the handle; copies out of it are the caller's choice (a small graph's
// arrays, a vertex's neighbours, the whole graph into device memory).
#include <napi.h>

#include <algorithm>
#include <climits>
#include <cstdio>
#include <cstring>
#include <memory>
#include <string>

#include "host_array.h"
#include "napi_args.h"
#include "wm/native_graph.h"
#include "wm/runtime.h"

namespace {

using wm::host::NativeGraph;
using wmnapi::Args;
using wmnapi::guarded;

Napi::FunctionReference* graphCtor = nullptr;

class NativeGraphWrap : public Napi::ObjectWrap<NativeGraphWrap> {
 public:
  static Napi::Function Define(Napi::Env env) {
    return DefineClass(env, "NativeGraph",
                       {
                           InstanceAccessor("numVertices", &NativeGraphWrap::NumVertices, nullptr),
                           InstanceAccessor("numEdges", &NativeGraphWrap::NumEdges, nullptr),
                           InstanceAccessor("bytes", &NativeGraphWrap::Bytes, nullptr),
                           InstanceAccessor("meta", &NativeGraphWrap::Meta, nullptr),
                           InstanceAccessor("checksum", &NativeGraphWrap::Checksum, nullptr),
                           InstanceMethod("save", &NativeGraphWrap::Save),
                           InstanceMethod("copyCsr", &NativeGraphWrap::CopyCsr),
                           InstanceMethod("degrees", &NativeGraphWrap::Degrees),
                           InstanceMethod("neighbors", &NativeGraphWrap::Neighbors),
                           InstanceMethod("rows", &NativeGraphWrap::Rows),
                           InstanceMethod("columns", &NativeGraphWrap::Columns),
                           InstanceMethod("offsets", &NativeGraphWrap::Offsets),
                           InstanceMethod("firstUnsortedRow", &NativeGraphWrap::FirstUnsortedRow),
                           InstanceMethod("firstColumnOutside", &NativeGraphWrap::FirstColumnOutside),
                           InstanceMethod("copyToDevice", &NativeGraphWrap::CopyToDevice),
                           InstanceMethod("free", &NativeGraphWrap::Free),
                       });
  }

  // Made only by the factories below, which pass the graph as an External.
  explicit NativeGraphWrap(const Napi::CallbackInfo& info) : Napi::ObjectWrap<NativeGraphWrap>(info) {
    if (info.Length() != 1 || !info[0].IsExternal())
      throw Napi::TypeError::New(info.Env(), "NativeGraph: made by graphFromEdges, graphRmat or graphLoad, not by new");
    graph_ = info[0].As<Napi::External<NativeGraph>>().Data();
    // The columns' pages outlive this object while a typed array views them.
    pages_ = std::shared_ptr<const NativeGraph>(graph_);
  }

  NativeGraph& get(const Napi::Env& env) const {
    if (!graph_) throw Napi::Error::New(env, "NativeGraph: the graph was freed");
    return *graph_;
  }

  static Napi::Value wrap(Napi::Env env, std::unique_ptr<NativeGraph> g) {
    Napi::Value ext = Napi::External<NativeGraph>::New(env, g.get());
    Napi::Object o = graphCtor->New({ext});
    g.release();  // owned by the wrap now
    return o;
  }

 private:
  Napi::Value NumVertices(const Napi::CallbackInfo& info) {
    return Napi::Number::New(info.Env(), static_cast<double>(get(info.Env()).numVertices()));
  }
  Napi::Value NumEdges(const Napi::CallbackInfo& info) {
    return Napi::Number::New(info.Env(), static_cast<double>(get(info.Env()).numEdges()));
  }
  Napi::Value Bytes(const Napi::CallbackInfo& info) { return Napi::Number::New(info.Env(), static_cast<double>(get(info.Env()).bytes())); }
  Napi::Value Meta(const Napi::CallbackInfo& info) { return Napi::String::New(info.Env(), get(info.Env()).meta()); }
  // The checksum of the graph's offsets and columns (not its note), 16 hex digits: what identifies the graph a model was trained on.
  Napi::Value Checksum(const Napi::CallbackInfo& info) {
    return guarded(info.Env(), [&]() -> Napi::Value {
      char hex[17];
      std::snprintf(hex, sizeof hex, "%016llx", static_cast<unsigned long long>(get(info.Env()).structureChecksum()));
      return Napi::String::New(info.Env(), hex);
    });
  }

  // save(path, meta, durable = true)
  Napi::Value Save(const Napi::CallbackInfo& info) {
    return guarded(info.Env(), [&]() -> Napi::Value {
      Args a(info, "NativeGraph.save");
      get(info.Env()).save(a.string(0, "path"), a.string(1, "meta"), a.flag(2, "durable", true));
      return info.Env().Undefined();
    });
  }

  // copyCsr(rowPtr: Int32Array [numVertices + 1], colIdx: Int32Array [numEdges] | null): a small graph's arrays.
  Napi::Value CopyCsr(const Napi::CallbackInfo& info) {
    return guarded(info.Env(), [&]() -> Napi::Value {
      Args a(info, "NativeGraph.copyCsr");
      const NativeGraph& g = get(info.Env());
      if (g.numEdges() > INT32_MAX)
        wm::fail("NativeGraph.copyCsr: " + std::to_string(g.numEdges()) +
                 " edges need 64-bit offsets; Int32Array offsets stop at 2^31 - 1");
      int32_t* rowPtr = a.ints(0, "rowPtr", g.numVertices() + 1);
      int32_t* colIdx = info[1].IsNull() ? nullptr : a.ints(1, "colIdx", g.numEdges());
      for (int64_t v = 0; v <= g.numVertices(); ++v) rowPtr[v] = static_cast<int32_t>(g.rowPtr()[v]);
      if (colIdx && g.numEdges() > 0) std::memcpy(colIdx, g.colIdx(), static_cast<size_t>(g.numEdges()) * 4);
      return info.Env().Undefined();
    });
  }

  // degrees(vertices: Int32Array, n, out: Int32Array)
  Napi::Value Degrees(const Napi::CallbackInfo& info) {
    return guarded(info.Env(), [&]() -> Napi::Value {
      Args a(info, "NativeGraph.degrees");
      const NativeGraph& g = get(info.Env());
      const int64_t n = a.count(1, "n");
      const int32_t* v = a.ints(0, "vertices", n);
      int32_t* out = a.ints(2, "out", n);
      for (int64_t i = 0; i < n; ++i) {
        if (v[i] < 0 || v[i] >= g.numVertices())
          a.reject(0, "vertices", "entry " + std::to_string(i) + " = " + std::to_string(v[i]) + " is not a vertex of the graph");
        const int64_t d = g.rowPtr()[v[i] + 1] - g.rowPtr()[v[i]];
        if (d > INT32_MAX)
          a.reject(0, "vertices",
                   "entry " + std::to_string(i) + ": vertex " + std::to_string(v[i]) + " has " + std::to_string(d) +
                       " entries, past what an int32 degree holds (2^31 - 1); read its offsets (NativeCsr.offsets)");
        out[i] = static_cast<int32_t>(d);
      }
      return info.Env().Undefined();
    });
  }

  // neighbors(v) -> Int32Array (a copy, ascending)
  Napi::Value Neighbors(const Napi::CallbackInfo& info) {
    return guarded(info.Env(), [&]() -> Napi::Value {
      Args a(info, "NativeGraph.neighbors");
      const NativeGraph& g = get(info.Env());
      const int64_t v = a.count(0, "v");
      if (v >= g.numVertices()) a.reject(0, "v", "must be a vertex of the graph (below " + std::to_string(g.numVertices()) + ")");
      const int64_t begin = g.rowPtr()[v], len = g.rowPtr()[v + 1] - begin;
      if (len > INT32_MAX)
        a.reject(0, "v",
                 "vertex " + std::to_string(v) + " has " + std::to_string(len) +
                     " neighbours, past what one typed array holds (2^31 - 1); read them in parts (NativeCsr.columns)");
      auto out = Napi::Int32Array::New(info.Env(), static_cast<size_t>(len));
      if (len > 0) std::memcpy(out.Data(), g.colIdx() + begin, static_cast<size_t>(len) * 4);
      return out;
    });
  }

  // rows(first, count) -> {offsets: Int32Array [count + 1] from 0, columns: Int32Array}: a copy of rows
  // [first, first + count), for work done a batch of rows at a time (refused past 2^31 - 1 entries).
  Napi::Value Rows(const Napi::CallbackInfo& info) {
    return guarded(info.Env(), [&]() -> Napi::Value {
      Args a(info, "NativeGraph.rows");
      const NativeGraph& g = get(info.Env());
      const int64_t first = a.count(0, "first"), count = a.count(1, "count");
      if (first + count > g.numVertices())
        a.reject(1, "count", "reaches row " + std::to_string(first + count) + ", past the graph's " + std::to_string(g.numVertices()));
      const int64_t* rp = g.rowPtr();
      const int64_t base = rp[first], entries = rp[first + count] - base;
      if (entries > INT32_MAX)
        a.reject(1, "count", "covers " + std::to_string(entries) + " entries; a batch of rows holds at most 2^31 - 1");
      auto offsets = Napi::Int32Array::New(info.Env(), static_cast<size_t>(count + 1));
      int32_t* o = offsets.Data();
      for (int64_t r = 0; r <= count; ++r) o[r] = static_cast<int32_t>(rp[first + r] - base);
      auto columns = Napi::Int32Array::New(info.Env(), static_cast<size_t>(entries));
      if (entries > 0) std::memcpy(columns.Data(), g.colIdx() + base, static_cast<size_t>(entries) * 4);
      Napi::Object out = Napi::Object::New(info.Env());
      out.Set("offsets", offsets);
      out.Set("columns", columns);
      return out;
    });
  }

  // columns(first?, count?) -> Int32Array viewing the graph's columns [first, first + count) (default all;
  // no copy; they stay alive while it does; at most 4 GiB a view)
  Napi::Value Columns(const Napi::CallbackInfo& info) {
    return guarded(info.Env(), [&]() -> Napi::Value {
      Args a(info, "NativeGraph.columns");
      const NativeGraph& g = get(info.Env());
      const auto [first, count] = range(a, g.numEdges());
      // The view shares ownership of the graph: an aliasing pointer to its column pages.
      auto owner = std::shared_ptr<const wm::host::PageArray>(pages_, &g.columnPages());
      return wmnapi::viewPages(info.Env(), owner, "int32", count, first);
    });
  }

  // [first, first + count) of `length` from arguments 0 and 1 (default: all).
  static std::pair<int64_t, int64_t> range(const Args& a, int64_t length) {
    const int64_t first = a.present(0) ? a.count(0, "first") : 0;
    const int64_t count = a.present(1) ? a.count(1, "count") : length - std::min(first, length);
    if (first + count > length)
      a.reject(1, "count", "reaches " + std::to_string(first + count) + ", past the array's " + std::to_string(length) + " entries");
    return {first, count};
  }

  // firstUnsortedRow() -> the first vertex whose neighbours are not in ascending order, or -1
  Napi::Value FirstUnsortedRow(const Napi::CallbackInfo& info) {
    return guarded(info.Env(),
                   [&]() -> Napi::Value { return Napi::Number::New(info.Env(), static_cast<double>(get(info.Env()).firstUnsortedRow())); });
  }

  // firstColumnOutside(limit) -> the first entry whose column is not in [0, limit), or -1
  Napi::Value FirstColumnOutside(const Napi::CallbackInfo& info) {
    return guarded(info.Env(), [&]() -> Napi::Value {
      Args a(info, "NativeGraph.firstColumnOutside");
      const int64_t limit = a.count(0, "limit");
      return Napi::Number::New(info.Env(), static_cast<double>(get(info.Env()).firstColumnOutside(limit)));
    });
  }

  // offsets(first?, count?) -> BigInt64Array viewing the graph's row offsets [first, first + count) (default
  // all numVertices + 1; no copy)
  Napi::Value Offsets(const Napi::CallbackInfo& info) {
    return guarded(info.Env(), [&]() -> Napi::Value {
      Args a(info, "NativeGraph.offsets");
      const NativeGraph& g = get(info.Env());
      const auto [first, count] = range(a, g.numVertices() + 1);
      auto owner = std::shared_ptr<const wm::host::PageArray>(pages_, &g.offsetPages());
      return wmnapi::viewPages(info.Env(), owner, "int64", count, first);
    });
  }

  // copyToDevice(rowPtr, colIdx): device addresses of (numVertices + 1) * 8 and numEdges * 4 bytes.
  Napi::Value CopyToDevice(const Napi::CallbackInfo& info) {
    return guarded(info.Env(), [&]() -> Napi::Value {
      Args a(info, "NativeGraph.copyToDevice");
      const NativeGraph& g = get(info.Env());
      const uint64_t rowPtr = a.address(0, "rowPtr"), colIdx = a.address(1, "colIdx");
      wm::copyHostToDevice(rowPtr, g.rowPtr(), static_cast<size_t>(g.numVertices() + 1) * 8);
      if (g.numEdges() > 0) wm::copyHostToDevice(colIdx, g.colIdx(), static_cast<size_t>(g.numEdges()) * 4);
      return info.Env().Undefined();
    });
  }

  Napi::Value Free(const Napi::CallbackInfo& info) {
    graph_ = nullptr;
    pages_.reset();
    return info.Env().Undefined();
  }

  NativeGraph* graph_ = nullptr;  // owned by pages_
  std::shared_ptr<const NativeGraph> pages_;
};

// graphFromEdges(numVertices, src, dst, symmetric) -> NativeGraph
Napi::Value GraphFromEdges(const Napi::CallbackInfo& info) {
  return guarded(info.Env(), [&]() -> Napi::Value {
    Args a(info, "graphFromEdges");
    const int64_t m = a.length(1, "src");
    if (a.length(2, "dst") != m) a.reject(2, "dst", "must hold as many entries as src");
    return NativeGraphWrap::wrap(
        info.Env(), NativeGraph::fromEdges(a.count(0, "numVertices"), a.ints(1, "src", m), a.ints(2, "dst", m), m, a.flag(3, "symmetric")));
  });
}

// graphFromEdgeArrays(numVertices, src: HostArray, dst: HostArray, symmetric) -> NativeGraph; the
// HostArrays are taken (freed as soon as the edges are placed when nothing else views them)
Napi::Value GraphFromEdgeArrays(const Napi::CallbackInfo& info) {
  return guarded(info.Env(), [&]() -> Napi::Value {
    Args a(info, "graphFromEdgeArrays");
    const int64_t n = a.count(0, "numVertices");
    const bool symmetric = a.flag(3, "symmetric");
    int64_t m = 0, m2 = 0;
    wm::host::PageArray src = wmnapi::takeHostArray(info[1], "int32", "graphFromEdgeArrays: src", &m);
    wm::host::PageArray dst = wmnapi::takeHostArray(info[2], "int32", "graphFromEdgeArrays: dst", &m2);
    if (m != m2) a.reject(2, "dst", "must hold as many ids as src (" + std::to_string(m) + "), got " + std::to_string(m2));
    return NativeGraphWrap::wrap(info.Env(), NativeGraph::fromEdgeArrays(n, std::move(src), std::move(dst), m, symmetric));
  });
}

// graphRelationFrom(graph, which: 0 same, 1 reversed, 2 both) -> NativeGraph: a relation from another's graph
Napi::Value GraphRelationFrom(const Napi::CallbackInfo& info) {
  return guarded(info.Env(), [&]() -> Napi::Value {
    Args a(info, "graphRelationFrom");
    const int64_t which = a.count(1, "which");
    if (which > 2) a.reject(1, "which", "must be 0 (same), 1 (reversed) or 2 (both)");
    return NativeGraphWrap::wrap(info.Env(),
                                 NativeGraph::relationFrom(a.graph(0, "graph"), static_cast<NativeGraph::RelationEdges>(which)));
  });
}

// The edge matrix of arguments 0-4: path, offset, m, int64, pairsInRows.
wm::host::EdgeMatrix edgeMatrix(const Args& a) {
  wm::host::EdgeMatrix e;
  e.path = a.string(0, "path");
  e.offset = static_cast<size_t>(a.count(1, "offset"));
  e.m = a.count(2, "m");
  e.int64 = a.flag(3, "int64");
  e.pairsInRows = a.flag(4, "pairsInRows");
  return e;
}

// graphFromEdgeMatrix(path, offset, m, int64, pairsInRows, numVertices (-1: the largest id + 1), symmetric) -> NativeGraph
// The caller read the file's header (src/data/npy.ts); the file is read here, in place.
Napi::Value GraphFromEdgeMatrix(const Napi::CallbackInfo& info) {
  return guarded(info.Env(), [&]() -> Napi::Value {
    Args a(info, "graphFromEdgeMatrix");
    const wm::host::EdgeMatrix e = edgeMatrix(a);
    const int64_t n = a.integer(5, "numVertices");
    if (n < -1) a.reject(5, "numVertices", "must be a vertex count, or -1 for the largest id + 1");
    return NativeGraphWrap::wrap(info.Env(), NativeGraph::fromEdgeMatrix(e, n, a.flag(6, "symmetric")));
  });
}

// graphRelation(numVertices, src, dst, numSrc, numDst) -> NativeGraph: a typed graph's relation (row d: the sources of
// d's edges), every source below numSrc and destination below numDst
Napi::Value GraphRelation(const Napi::CallbackInfo& info) {
  return guarded(info.Env(), [&]() -> Napi::Value {
    Args a(info, "graphRelation");
    const int64_t m = a.length(1, "src");
    if (a.length(2, "dst") != m) a.reject(2, "dst", "must hold as many entries as src");
    return NativeGraphWrap::wrap(info.Env(), NativeGraph::relation(a.count(0, "numVertices"), a.ints(1, "src", m), a.ints(2, "dst", m), m,
                                                                   a.count(3, "numSrc"), a.count(4, "numDst")));
  });
}

// graphRelationFromEdgeMatrix(path, offset, m, int64, pairsInRows, numVertices) -> NativeGraph
Napi::Value GraphRelationFromEdgeMatrix(const Napi::CallbackInfo& info) {
  return guarded(info.Env(), [&]() -> Napi::Value {
    Args a(info, "graphRelationFromEdgeMatrix");
    return NativeGraphWrap::wrap(info.Env(), NativeGraph::relationFromEdgeMatrix(edgeMatrix(a), a.count(5, "numVertices")));
  });
}

// edgeMatrixMaxIds(path, offset, m, int64, pairsInRows) -> [largest source, largest destination] (-1: none)
Napi::Value EdgeMatrixMaxIds(const Napi::CallbackInfo& info) {
  return guarded(info.Env(), [&]() -> Napi::Value {
    Args a(info, "edgeMatrixMaxIds");
    const auto [s, d] = NativeGraph::edgeMatrixMaxIds(edgeMatrix(a));
    Napi::Array out = Napi::Array::New(info.Env(), 2);
    out.Set(0u, Napi::Number::New(info.Env(), static_cast<double>(s)));
    out.Set(1u, Napi::Number::New(info.Env(), static_cast<double>(d)));
    return out;
  });
}

// graphTypedDraw(numSrc, numDst, m, srcSkew, dstSkew, homophily, classes, seed, reverse, both, srcLabels?, dstLabels?)
// -> NativeGraph: a generated relation (wm/native_graph.h TypedDrawSpec); the labels are needed where homophily > 0
Napi::Value GraphTypedDraw(const Napi::CallbackInfo& info) {
  return guarded(info.Env(), [&]() -> Napi::Value {
    Args a(info, "graphTypedDraw");
    wm::host::TypedDrawSpec s;
    s.numSrc = a.count(0, "numSrc");
    s.numDst = a.count(1, "numDst");
    s.m = a.count(2, "m");
    s.srcSkew = a.number(3, "srcSkew");
    s.dstSkew = a.number(4, "dstSkew");
    s.homophily = a.number(5, "homophily");
    s.classes = static_cast<int32_t>(std::min<int64_t>(a.count(6, "classes"), INT32_MAX));
    s.seed = static_cast<uint64_t>(a.count(7, "seed"));
    s.reverse = a.flag(8, "reverse");
    s.both = a.flag(9, "both");
    const int32_t* srcLabels = a.present(10) ? a.ints(10, "srcLabels", s.numSrc) : nullptr;
    const int32_t* dstLabels = a.present(11) ? a.ints(11, "dstLabels", s.numDst) : nullptr;
    return NativeGraphWrap::wrap(info.Env(), NativeGraph::typedDraw(s, srcLabels, dstLabels));
  });
}

// hashLabels(n, classes, seed, out: Int32Array [n]): labels in [0, classes) from a hash of (seed, vertex)
Napi::Value HashLabels(const Napi::CallbackInfo& info) {
  return guarded(info.Env(), [&]() -> Napi::Value {
    Args a(info, "hashLabels");
    const int64_t n = a.count(0, "n");
    const int64_t classes = a.count(1, "classes");
    if (classes < 1 || classes > INT32_MAX) a.reject(1, "classes", "must be in [1, 2^31 - 1]");
    wm::host::hashLabels(n, static_cast<int32_t>(classes), static_cast<uint64_t>(a.count(2, "seed")), a.ints(3, "out", n));
    return info.Env().Undefined();
  });
}

// The CSBM spec from arguments 0-4: vertices, classes, degree, homophily, seed.
wm::host::CsbmSpec csbmSpec(const Args& a) {
  wm::host::CsbmSpec s;
  s.vertices = a.count(0, "vertices");
  s.classes = static_cast<int32_t>(std::min<int64_t>(a.count(1, "classes"), INT32_MAX));
  s.degree = a.number(2, "degree");
  s.homophily = a.number(3, "homophily");
  s.seed = static_cast<uint64_t>(a.count(4, "seed"));
  return s;
}

// graphCsbm(vertices, classes, degree, homophily, seed, labels: Int32Array [vertices], written) -> NativeGraph
Napi::Value GraphCsbm(const Napi::CallbackInfo& info) {
  return guarded(info.Env(), [&]() -> Napi::Value {
    Args a(info, "graphCsbm");
    const wm::host::CsbmSpec s = csbmSpec(a);
    return NativeGraphWrap::wrap(info.Env(), NativeGraph::csbm(s, a.ints(5, "labels", s.vertices)));
  });
}

// csbmFeatures(vertices, classes, degree, homophily, seed, labels, means: Float32Array [classes * dim], dim, first, count,
//   out: Float32Array [count * dim])
Napi::Value CsbmFeatures(const Napi::CallbackInfo& info) {
  return guarded(info.Env(), [&]() -> Napi::Value {
    Args a(info, "csbmFeatures");
    const wm::host::CsbmSpec s = csbmSpec(a);
    const int64_t dim = a.count(7, "dim"), first = a.count(8, "first"), count = a.count(9, "count");
    if (first + count > s.vertices) a.reject(9, "count", "reaches row " + std::to_string(first + count) + ", past the graph's vertices");
    const int32_t* labels = a.ints(5, "labels", s.vertices);
    for (int64_t v = first; v < first + count; ++v)
      if (labels[v] < 0 || labels[v] >= s.classes) a.reject(5, "labels", "labels[" + std::to_string(v) + "] is not a class");
    wm::host::csbmFeatures(s, labels, a.floats(6, "means", int64_t{s.classes} * dim), dim, first, count, a.floats(10, "out", count * dim));
    return info.Env().Undefined();
  });
}

// graphFromCsr(rowPtr: Int32Array, colIdx: Int32Array) -> NativeGraph (a copy, with 64-bit offsets; checked)
Napi::Value GraphFromCsr(const Napi::CallbackInfo& info) {
  return guarded(info.Env(), [&]() -> Napi::Value {
    Args a(info, "graphFromCsr");
    const int64_t n1 = a.length(0, "rowPtr");
    if (n1 < 1) a.reject(0, "rowPtr", "must hold numVertices + 1 offsets");
    const int64_t m = a.length(1, "colIdx");
    return NativeGraphWrap::wrap(info.Env(), NativeGraph::fromCsr(n1 - 1, a.ints(0, "rowPtr", n1), a.ints(1, "colIdx", m), m));
  });
}

// graphRmat(scale, edgeFactor, a, b, c, seed, permute, vertices, symmetric) -> NativeGraph
Napi::Value GraphRmat(const Napi::CallbackInfo& info) {
  return guarded(info.Env(), [&]() -> Napi::Value {
    Args a(info, "graphRmat");
    wm::host::RmatSpec s;
    s.scale = static_cast<int>(a.count(0, "scale"));
    s.edgeFactor = a.number(1, "edgeFactor");
    s.a = a.number(2, "a");
    s.b = a.number(3, "b");
    s.c = a.number(4, "c");
    if (!(s.a > 0 && s.b >= 0 && s.c >= 0 && s.a + s.b + s.c < 1))
      a.reject(2, "a", "a, b, c must be non-negative with a > 0 and a + b + c < 1");
    const int64_t seed = a.count(5, "seed");
    if (seed > UINT32_MAX) a.reject(5, "seed", "must be below 2^32");
    s.seed = static_cast<uint32_t>(seed);
    s.permute = a.flag(6, "permute");
    s.vertices = a.count(7, "vertices");
    s.symmetric = a.flag(8, "symmetric");
    return NativeGraphWrap::wrap(info.Env(), NativeGraph::rmat(s));
  });
}

// graphLoad(path) -> NativeGraph (throws naming the file when it is not a whole, unchanged graph file)
Napi::Value GraphLoad(const Napi::CallbackInfo& info) {
  return guarded(info.Env(), [&]() -> Napi::Value {
    Args a(info, "graphLoad");
    return NativeGraphWrap::wrap(info.Env(), NativeGraph::load(a.string(0, "path")));
  });
}

}  // namespace

// The graph behind a NativeGraph object, or null when the value is not one.
const NativeGraph* unwrapNativeGraph(const Napi::Value& v) {
  if (!v.IsObject() || !v.As<Napi::Object>().InstanceOf(graphCtor->Value())) return nullptr;
  return &NativeGraphWrap::Unwrap(v.As<Napi::Object>())->get(v.Env());
}

const wm::host::NativeGraph* wmnapi::Args::rawGraph(size_t i, const char*) const { return unwrapNativeGraph(info_[i]); }

void InitNativeGraph(Napi::Env env, Napi::Object exports) {
  Napi::Function c = NativeGraphWrap::Define(env);
  graphCtor = new Napi::FunctionReference(Napi::Persistent(c));
  exports.Set("NativeGraph", c);
  exports.Set("graphFromEdges", Napi::Function::New(env, GraphFromEdges, "graphFromEdges"));
  exports.Set("graphFromEdgeArrays", Napi::Function::New(env, GraphFromEdgeArrays, "graphFromEdgeArrays"));
  exports.Set("graphFromCsr", Napi::Function::New(env, GraphFromCsr, "graphFromCsr"));
  exports.Set("graphCsbm", Napi::Function::New(env, GraphCsbm, "graphCsbm"));
  exports.Set("csbmFeatures", Napi::Function::New(env, CsbmFeatures, "csbmFeatures"));
  exports.Set("graphFromEdgeMatrix", Napi::Function::New(env, GraphFromEdgeMatrix, "graphFromEdgeMatrix"));
  exports.Set("graphRelation", Napi::Function::New(env, GraphRelation, "graphRelation"));
  exports.Set("graphRelationFrom", Napi::Function::New(env, GraphRelationFrom, "graphRelationFrom"));
  exports.Set("graphRelationFromEdgeMatrix", Napi::Function::New(env, GraphRelationFromEdgeMatrix, "graphRelationFromEdgeMatrix"));
  exports.Set("edgeMatrixMaxIds", Napi::Function::New(env, EdgeMatrixMaxIds, "edgeMatrixMaxIds"));
  exports.Set("graphTypedDraw", Napi::Function::New(env, GraphTypedDraw, "graphTypedDraw"));
  exports.Set("hashLabels", Napi::Function::New(env, HashLabels, "hashLabels"));
  exports.Set("graphRmat", Napi::Function::New(env, GraphRmat, "graphRmat"));
  exports.Set("graphLoad", Napi::Function::New(env, GraphLoad, "graphLoad"));
}
