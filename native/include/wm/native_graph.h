// A graph in native memory: CSR with int64 row offsets and int32 column ids
// (vertices < 2^31), built, saved and loaded by multithreaded C++ so that no
// graph-sized array passes through JavaScript. The same class holds a
// 10-vertex graph and a 3-billion-entry one.
#pragma once
#include <cstddef>
#include <cstdint>
#include <functional>
#include <memory>
#include <string>
#include <utility>

#include "wm/page_array.h"

namespace wm {
namespace host {

// The R-MAT draws of src/graph/rmat.ts: 2^scale vertices, edges = round(2^scale * edgeFactor),
// vertices relabelled by a seeded permutation when permute; only the edges between the first
// `vertices` (after relabelling) are kept.
struct RmatSpec {
  int scale = 16;
  double edgeFactor = 16;
  double a = 0.57, b = 0.19, c = 0.19;
  uint32_t seed = 1;
  bool permute = true;
  int64_t vertices = -1;  // -1: all 2^scale
  bool symmetric = true;
};

// Edges stored as a matrix of vertex ids in a file (NumPy's edge_index): `m` edges from byte `offset`, int32
// or int64, little-endian, C order; [2, m] (sources, then destinations: PyG's and OGB's layout) or, with
// pairsInRows, [m, 2].
struct EdgeMatrix {
  std::string path;
  size_t offset = 0;
  int64_t m = 0;
  bool int64 = false;
  bool pairsInRows = false;
};

// The contextual stochastic block model drawn natively (src/graph/csbm.ts describes the model): labels
// uniform over `classes` from a hash of the vertex, m = round(n * degree / 2) undirected edges each from a
// hash of its index (a uniform source; a target in its class with probability `homophily`, else outside
// it), so any thread draws any edge and a seed gives one graph.
struct CsbmSpec {
  int64_t vertices = 0;
  int32_t classes = 2;
  double degree = 10;
  double homophily = 0.8;
  uint64_t seed = 1;
};

// Rows [first, first + count) of its features [vertices, dim]: the vertex's class mean (means [classes, dim])
// plus unit Gaussian noise from a hash of (seed, vertex, coordinate): any chunking gives the same rows.
void csbmFeatures(const CsbmSpec& s, const int32_t* labels, const float* means, int64_t dim, int64_t first, int64_t count, float* out);

// One relation of a generated typed graph (src/graph/mag_shaped.ts): m edges, each from a hash of (seed,
// edge): a source among numSrc drawn skewed (id floor(n u^srcSkew): heavy-tailed degrees, 1 uniform), a
// destination with probability homophily among the destinations of the source's class (skewed alike within
// the class), else among all of them. Labels (srcLabels [numSrc], dstLabels [numDst] in [0, classes)) are
// needed only where homophily > 0. `reverse` builds the relation the other way (rows the sources), and `both`
// holds each edge both ways (a relation within one type made undirected).
struct TypedDrawSpec {
  int64_t numSrc = 0, numDst = 0, m = 0;
  double srcSkew = 1, dstSkew = 1, homophily = 0;
  int32_t classes = 1;
  uint64_t seed = 1;
  bool reverse = false, both = false;
};

// Labels in [0, classes) from a hash of (seed, vertex): the same whatever the thread count.
void hashLabels(int64_t n, int32_t classes, uint64_t seed, int32_t* out);

class NativeGraph {
 public:
  // The CSBM graph of `s`, its labels drawn into `labels` [vertices] (in [0, classes)); symmetric, rows
  // sorted, duplicates and self loops dropped.
  static std::unique_ptr<NativeGraph> csbm(const CsbmSpec& s, int32_t* labels);
  // CSR from an edge matrix in a file, read in place (int32 [2, m] is mapped, not copied; other layouts
  // are converted in parallel). numVertices -1: the largest id + 1. Errors name the file and the edge.
  static std::unique_ptr<NativeGraph> fromEdgeMatrix(const EdgeMatrix& e, int64_t numVertices, bool symmetric);
  // CSR from edges: rows sorted ascending, duplicates and self loops dropped; symmetric adds each reverse edge.
  static std::unique_ptr<NativeGraph> fromEdges(int64_t numVertices, const int32_t* src, const int32_t* dst, int64_t m, bool symmetric);
  // The same from edge arrays it takes over: they are freed once the edges are placed, so the peak
  // is the edges plus one copy of the entries.
  static std::unique_ptr<NativeGraph> fromEdgeArrays(int64_t numVertices, PageArray&& src, PageArray&& dst, int64_t m, bool symmetric);
  // A typed graph's relation from its edges: row d lists the sources of the edges into d, ascending, every
  // edge kept (repeats, and pairs of equal ids: they name vertices of two types). numVertices rows (the
  // larger of the two types' counts); a source outside [0, numSrc) or a destination outside [0, numDst)
  // (each numVertices where -1) is refused, naming the edge and its end. The same graph on any number of threads.
  static std::unique_ptr<NativeGraph> relation(int64_t numVertices, const int32_t* src, const int32_t* dst, int64_t m, int64_t numSrc = -1,
                                               int64_t numDst = -1);
  // A relation from another relation's graph g: its edges as they are, each the other way (the reverse
  // relation: rows the sources), or both ways (a relation within one type made undirected); g's row count.
  enum class RelationEdges { Same, Reversed, Both };
  static std::unique_ptr<NativeGraph> relationFrom(const NativeGraph& g, RelationEdges which);
  // The same from an edge matrix in a file (sources, then destinations, as OGB saves a relation's edge_index).
  static std::unique_ptr<NativeGraph> relationFromEdgeMatrix(const EdgeMatrix& e, int64_t numVertices);
  // A generated relation (TypedDrawSpec); rows are destinations (sources with reverse), every edge kept.
  static std::unique_ptr<NativeGraph> typedDraw(const TypedDrawSpec& s, const int32_t* srcLabels, const int32_t* dstLabels);
  // The largest source and destination ids of an edge matrix in a file (-1 for none), each id checked.
  static std::pair<int64_t, int64_t> edgeMatrixMaxIds(const EdgeMatrix& e);
  // A copy of CSR arrays with int32 offsets, checked: offsets from 0 to m, never decreasing, columns
  // vertices; rows are kept as given.
  static std::unique_ptr<NativeGraph> fromCsr(int64_t numVertices, const int32_t* rowPtr, const int32_t* colIdx, int64_t m);
  // The R-MAT graph drawn twice from its per-edge streams (degrees, then placement): no edge arrays.
  static std::unique_ptr<NativeGraph> rmat(const RmatSpec& spec);
  // A graph file written by save(): header, row offsets, columns, checksum; mapped read-only.
  // Throws (naming the file and what is wrong) when it is not one, is truncated, or fails its checksum.
  static std::unique_ptr<NativeGraph> load(const std::string& path);
  // Writes the file atomically (a temporary beside it, then renamed). `meta` is kept with it (load returns it).
  // durable: the data reaches the disk before the rename (a cache, checked when read, may skip it).
  void save(const std::string& path, const std::string& meta, bool durable = true) const;

  int64_t numVertices() const { return numVertices_; }
  int64_t numEdges() const { return numEdges_; }
  const int64_t* rowPtr() const { return static_cast<const int64_t*>(rowPtr_.data()); }
  const int32_t* colIdx() const { return static_cast<const int32_t*>(colIdx_.data()); }
  const std::string& meta() const { return meta_; }
  // The pages holding the offsets and the columns (for views that share them).
  const PageArray& offsetPages() const { return rowPtr_; }
  const PageArray& columnPages() const { return colIdx_; }
  // Bytes the arrays take: (numVertices + 1) * 8 + numEdges * 4.
  int64_t bytes() const { return (numVertices_ + 1) * 8 + numEdges_ * 4; }
  // A 64-bit digest of both arrays and the note (the file records it).
  uint64_t checksum() const;
  // A 64-bit digest of both arrays alone: the same graph gives the same, whatever note it carries.
  uint64_t structureChecksum() const { return checksumWith(""); }
  // The first vertex whose neighbours are not in ascending order, or -1 (node2vec's walks and negative
  // pairs search rows by bisection). Checked in parallel on each call.
  int64_t firstUnsortedRow() const;
  // The first entry whose column is not an id in [0, limit), or -1 (a relation's sources checked against
  // their type's count). Checked in parallel on each call.
  int64_t firstColumnOutside(int64_t limit) const;

 private:
  NativeGraph() = default;
  uint64_t checksumWith(const std::string& meta) const;
  static std::unique_ptr<NativeGraph> build(int64_t numVertices, const int32_t* src, const int32_t* dst, int64_t m, bool symmetric,
                                            const std::function<void()>& edgesPlaced);
  // Turns unsorted rows in `col` (row v at [start[v], start[v + 1])) into the final CSR.
  static std::unique_ptr<NativeGraph> finish(int64_t numVertices, PageArray&& start, PageArray&& col);
  int64_t numVertices_ = 0, numEdges_ = 0;
  PageArray rowPtr_, colIdx_;  // anonymous memory, or the loaded file's pages
  std::string meta_;
};

}  // namespace host
}  // namespace wm
