// NativeGraph (wm/native_graph.h): CSR with int64 offsets built in parallel
// (degrees by atomic counts, entries bucketed by blocks of rows and placed a
// block per thread, each row then sorted and deduplicated, rows compacted),
// and its file: a 4 KiB header, the offsets, the columns and a caller's note,
// with a checksum over all three.
#include "wm/native_graph.h"

#include <fcntl.h>
#include <sys/mman.h>
#include <unistd.h>

#include <algorithm>
#include <atomic>
#include <cerrno>
#include <cstring>
#include <functional>
#include <string>
#include <utility>
#include <vector>

#include "graph/csr_offsets.h"
#include "graph/place_entries.h"
#include "graph/rmat_draws.h"
#include "runtime/parallel.h"
#include "wm/status.h"

namespace wm {
namespace host {

namespace {

constexpr int64_t kMaxVertices = INT32_MAX;  // column ids are int32

// ---- the file ---------------------------------------------------------------------------------------
// The last byte is the format: 2 digests every byte (format 1's checksum skipped part of each array's tail).
constexpr char kMagic[8] = {'W', 'M', 'C', 'S', 'R', '6', '4', '\2'};
constexpr size_t kHeaderBytes = 4096;

struct Header {
  char magic[8];
  uint64_t headerBytes, numVertices, numEdges, rowPtrOffset, colIdxOffset, metaOffset, metaBytes, fileBytes, checksum;
};

size_t roundUp(size_t x, size_t to) { return (x + to - 1) / to * to; }

Header layout(int64_t n, int64_t m, size_t metaBytes) {
  Header h{};
  std::memcpy(h.magic, kMagic, 8);
  h.headerBytes = kHeaderBytes;
  h.numVertices = static_cast<uint64_t>(n);
  h.numEdges = static_cast<uint64_t>(m);
  h.rowPtrOffset = kHeaderBytes;
  h.colIdxOffset = roundUp(h.rowPtrOffset + static_cast<size_t>(n + 1) * 8, kHeaderBytes);
  h.metaOffset = h.colIdxOffset + static_cast<size_t>(m) * 4;
  h.metaBytes = metaBytes;
  h.fileBytes = h.metaOffset + metaBytes;
  return h;
}

void writeAll(int fd, const void* p, size_t bytes, size_t at, const std::string& path) {
  const uint8_t* q = static_cast<const uint8_t*>(p);
  while (bytes > 0) {
    const ssize_t w = pwrite(fd, q, std::min<size_t>(bytes, size_t{1} << 30), static_cast<off_t>(at));
    if (w < 0 && errno == EINTR) continue;
    if (w <= 0) fail(path + ": write failed (" + std::strerror(errno) + ")");
    q += w;
    at += static_cast<size_t>(w);
    bytes -= static_cast<size_t>(w);
  }
}

}  // namespace

void inclusiveScan(const int64_t* in, int64_t* out, int64_t n) {
  const int64_t parts = std::max<int64_t>(1, std::min<int64_t>(ThreadPool::get().workers() + 1, n / (1 << 16)));
  const int64_t chunk = (n + parts - 1) / parts;
  std::vector<int64_t> sums(static_cast<size_t>(parts) + 1, 0);
  ThreadPool::get().run(parts, [&](int64_t t) {
    int64_t s = 0;
    for (int64_t i = t * chunk, e = std::min(n, (t + 1) * chunk); i < e; ++i) s += in[i];
    sums[static_cast<size_t>(t) + 1] = s;
  });
  for (int64_t t = 0; t < parts; ++t) sums[static_cast<size_t>(t) + 1] += sums[static_cast<size_t>(t)];
  ThreadPool::get().run(parts, [&](int64_t t) {
    int64_t s = sums[static_cast<size_t>(t)];
    for (int64_t i = t * chunk, e = std::min(n, (t + 1) * chunk); i < e; ++i) out[i] = s += in[i];
  });
}

// ---- building ---------------------------------------------------------------------------------------
std::unique_ptr<NativeGraph> NativeGraph::finish(int64_t n, PageArray&& start, PageArray&& col) {
  int64_t* st = static_cast<int64_t*>(start.data());
  int32_t* c = static_cast<int32_t*>(col.data());
  // Sort and deduplicate each row where it lies; rp[v + 1] = entries row v keeps, then summed into offsets.
  auto g = std::unique_ptr<NativeGraph>(new NativeGraph());
  g->numVertices_ = n;
  g->rowPtr_ = PageArray::allocate(static_cast<size_t>(n + 1) * 8, "NativeGraph row offsets");
  int64_t* rp = static_cast<int64_t*>(g->rowPtr_.data());
  parallelForByCost(
      n, 1 << 16, [&](int64_t v) { return st[v] + v; },
      [&](int64_t b, int64_t e) {
        for (int64_t v = b; v < e; ++v) {
          int32_t* row = c + st[v];
          const int64_t len = st[v + 1] - st[v];
          std::sort(row, row + len);
          int64_t k = 0;
          for (int64_t j = 0; j < len; ++j) {
            if (row[j] == v || (k > 0 && row[k - 1] == row[j])) continue;
            row[k++] = row[j];
          }
          rp[v + 1] = k;
        }
      });
  rp[0] = 0;
  inclusiveScan(rp + 1, rp + 1, n);
  // Rows move left in place (rp[v] <= st[v]), in order, so no second column array is needed: the
  // peak stays at one copy of the entries.
  for (int64_t v = 0; v < n; ++v)
    if (rp[v] != st[v]) std::memmove(c + rp[v], c + st[v], static_cast<size_t>(rp[v + 1] - rp[v]) * 4);
  start = PageArray();
  g->numEdges_ = rp[n];
  col.shrink(static_cast<size_t>(g->numEdges_) * 4);
  g->colIdx_ = std::move(col);
  return g;
}

std::unique_ptr<NativeGraph> NativeGraph::fromEdges(int64_t n, const int32_t* src, const int32_t* dst, int64_t m, bool symmetric) {
  return build(n, src, dst, m, symmetric, [] {});
}

std::unique_ptr<NativeGraph> NativeGraph::fromEdgeArrays(int64_t n, PageArray&& src, PageArray&& dst, int64_t m, bool symmetric) {
  WM_REQUIRE(src.bytes() >= static_cast<size_t>(m) * 4 && dst.bytes() >= static_cast<size_t>(m) * 4,
             "fromEdgeArrays: src and dst must hold " + std::to_string(m) + " ids each");
  PageArray s = std::move(src), d = std::move(dst);
  return build(n, static_cast<const int32_t*>(s.data()), static_cast<const int32_t*>(d.data()), m, symmetric, [&] {
    s = PageArray();
    d = PageArray();
  });
}

std::unique_ptr<NativeGraph> NativeGraph::build(int64_t n, const int32_t* src, const int32_t* dst, int64_t m, bool symmetric,
                                                const std::function<void()>& edgesPlaced) {
  WM_REQUIRE(n >= 0 && n <= kMaxVertices, "fromEdges: numVertices must be in [0, 2^31 - 1], got " + std::to_string(n));
  // The first edge naming a vertex outside the graph.
  const int64_t i = parallelFirst(m, 1 << 16, [&](int64_t e) { return src[e] < 0 || src[e] >= n || dst[e] < 0 || dst[e] >= n; });
  if (i < m) {
    fail("fromEdges: edge " + std::to_string(i) + " (" + std::to_string(src[i]) + ", " + std::to_string(dst[i]) +
         ") names a vertex outside [0, " + std::to_string(n) + ")");
  }
  PageArray start = PageArray::allocate(static_cast<size_t>(n + 1) * 8, "NativeGraph");
  int64_t* st = static_cast<int64_t*>(start.data());
  parallelFor(m, 1 << 16, [&](int64_t b, int64_t e) {
    for (int64_t i = b; i < e; ++i) {
      fetchAdd(st + src[i] + 1, 1);
      if (symmetric) fetchAdd(st + dst[i] + 1, 1);
    }
  });
  inclusiveScan(st + 1, st + 1, n);
  const int64_t total = st[n];
  PageArray col = PageArray::allocate(static_cast<size_t>(total) * 4, "NativeGraph");
  int32_t* c = static_cast<int32_t*>(col.data());
  placeEntries(n, src, dst, m, symmetric, st, c);
  edgesPlaced();
  return finish(n, std::move(start), std::move(col));
}

std::unique_ptr<NativeGraph> NativeGraph::fromCsr(int64_t n, const int32_t* rowPtr, const int32_t* colIdx, int64_t m) {
  WM_REQUIRE(n >= 0 && n <= kMaxVertices, "fromCsr: numVertices must be in [0, 2^31 - 1], got " + std::to_string(n));
  WM_REQUIRE(rowPtr[0] == 0 && rowPtr[n] == m, "fromCsr: rowPtr must run from 0 to colIdx's length " + std::to_string(m));
  for (int64_t v = 0; v < n; ++v) WM_REQUIRE(rowPtr[v + 1] >= rowPtr[v], "fromCsr: rowPtr decreases at vertex " + std::to_string(v));
  auto g = std::unique_ptr<NativeGraph>(new NativeGraph());
  g->numVertices_ = n;
  g->numEdges_ = m;
  g->rowPtr_ = PageArray::allocate(static_cast<size_t>(n + 1) * 8, "NativeGraph row offsets");
  g->colIdx_ = PageArray::allocate(static_cast<size_t>(m) * 4, "NativeGraph columns");
  int64_t* rp = static_cast<int64_t*>(g->rowPtr_.data());
  for (int64_t v = 0; v <= n; ++v) rp[v] = rowPtr[v];
  int32_t* c = static_cast<int32_t*>(g->colIdx_.data());
  for (int64_t e = 0; e < m; ++e) {
    WM_REQUIRE(colIdx[e] >= 0 && colIdx[e] < n, "fromCsr: colIdx[" + std::to_string(e) + "] = " + std::to_string(colIdx[e]) +
                                                    " is not a vertex in [0, " + std::to_string(n) + ")");
    c[e] = colIdx[e];
  }
  return g;
}

std::unique_ptr<NativeGraph> NativeGraph::rmat(const RmatSpec& s) {
  WM_REQUIRE(s.scale >= 1 && s.scale <= 31, "NativeGraph.rmat: scale must be in [1, 31], got " + std::to_string(s.scale));
  const int64_t full = int64_t{1} << s.scale;
  const int64_t n = s.vertices < 0 ? full : s.vertices;
  WM_REQUIRE(n >= 1 && n <= std::min(full, kMaxVertices),
             "NativeGraph.rmat: vertices must be in [1, 2^scale] and below 2^31, got " + std::to_string(n));
  WM_REQUIRE(n == full || s.permute, "NativeGraph.rmat: vertices below 2^scale needs permute (the kept ids would be the densest corner)");
  const double drawn = static_cast<double>(full) * s.edgeFactor;
  WM_REQUIRE(s.edgeFactor >= 0 && drawn < 9.0e15, "NativeGraph.rmat: edgeFactor must be non-negative and give fewer than 2^53 edges");
  const RmatDraws draws{s.scale, static_cast<int64_t>(std::llround(drawn)), s.a, s.b, s.c, s.seed};
  std::vector<int32_t> perm;
  if (s.permute) perm = draws.permutation();
  const auto label = [&](int32_t u) { return s.permute ? perm[static_cast<size_t>(u)] : u; };
  // Pass 1: degrees of the kept edges; pass 2 draws the same edges again and places them.
  PageArray start = PageArray::allocate(static_cast<size_t>(n + 1) * 8, "NativeGraph.rmat");
  int64_t* st = static_cast<int64_t*>(start.data());
  draws.forEach([&](int64_t, int32_t u0, int32_t v0) {
    const int32_t u = label(u0), v = label(v0);
    if (u >= n || v >= n) return;
    fetchAdd(st + u + 1, 1);
    if (s.symmetric) fetchAdd(st + v + 1, 1);
  });
  inclusiveScan(st + 1, st + 1, n);
  PageArray col = PageArray::allocate(static_cast<size_t>(st[n]) * 4, "NativeGraph.rmat");
  int32_t* c = static_cast<int32_t*>(col.data());
  {
    // The edges drawn again a chunk at a time into a buffer (the dropped ones as non-edges), and placed.
    EntryPlacer placer(n, st, c, s.symmetric, draws.m);
    const int64_t chunk = placer.chunkEdges();
    PageArray edgePages = PageArray::allocate(static_cast<size_t>(chunk) * 8, "NativeGraph.rmat edges");
    auto* eu = static_cast<int32_t*>(edgePages.data());
    int32_t* ev = eu + chunk;
    for (int64_t e0 = 0; e0 < draws.m; e0 += chunk) {
      const int64_t len = std::min(chunk, draws.m - e0);
      draws.forEachIn(e0, e0 + len, [&](int64_t e, int32_t u0, int32_t v0) {
        const int32_t u = label(u0), v = label(v0);
        const bool kept = u < n && v < n;
        eu[e - e0] = kept ? u : -1;
        ev[e - e0] = v;
      });
      placer.place(eu, ev, len);
    }
  }
  return finish(n, std::move(start), std::move(col));
}

uint64_t NativeGraph::checksum() const { return checksumWith(meta_); }

int64_t NativeGraph::firstUnsortedRow() const {
  const int64_t* rp = rowPtr();
  const int32_t* c = colIdx();
  const int64_t v = parallelFirst(numVertices_, 1 << 14, [&](int64_t r) {
    for (int64_t i = rp[r] + 1; i < rp[r + 1]; ++i)
      if (c[i] < c[i - 1]) return true;
    return false;
  });
  return v == numVertices_ ? -1 : v;
}

int64_t NativeGraph::firstColumnOutside(int64_t limit) const {
  const int32_t* c = colIdx();
  const int64_t i = parallelFirst(numEdges_, 1 << 16, [&](int64_t e) { return c[e] < 0 || c[e] >= limit; });
  return i == numEdges_ ? -1 : i;
}

// The file's checksum covers the offsets, the columns and the note as it will be read back.
uint64_t NativeGraph::checksumWith(const std::string& meta) const {
  const uint64_t a = digest(rowPtr_.data(), static_cast<size_t>(numVertices_ + 1) * 8, 1);
  const uint64_t b = digest(colIdx_.data(), static_cast<size_t>(numEdges_) * 4, 2);
  const uint64_t c = digest(meta.data(), meta.size(), 3);
  return mixDigest(a ^ mixDigest(b ^ mixDigest(c)));
}

// ---- files ------------------------------------------------------------------------------------------
void NativeGraph::save(const std::string& path, const std::string& meta, bool durable) const {
  Header h = layout(numVertices_, numEdges_, meta.size());
  h.checksum = checksumWith(meta);
  const std::string tmp = path + ".tmp-" + std::to_string(getpid());
  unlink(tmp.c_str());  // a dead writer's temporary of this pid; never follow a link planted there
  const int fd = open(tmp.c_str(), O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, 0644);
  if (fd < 0) fail(path + ": cannot create " + tmp + " (" + std::strerror(errno) + ")");
  try {
    std::vector<uint8_t> head(kHeaderBytes, 0);
    std::memcpy(head.data(), &h, sizeof h);
    writeAll(fd, head.data(), head.size(), 0, path);
    writeAll(fd, rowPtr_.data(), static_cast<size_t>(numVertices_ + 1) * 8, h.rowPtrOffset, path);
    writeAll(fd, colIdx_.data(), static_cast<size_t>(numEdges_) * 4, h.colIdxOffset, path);
    writeAll(fd, meta.data(), meta.size(), h.metaOffset, path);
    if (ftruncate(fd, static_cast<off_t>(h.fileBytes)) != 0 || (durable && fsync(fd) != 0))
      fail(path + ": cannot finish " + tmp + " (" + std::strerror(errno) + ")");
  } catch (...) {
    close(fd);
    unlink(tmp.c_str());
    throw;
  }
  close(fd);
  if (rename(tmp.c_str(), path.c_str()) != 0) {
    const int e = errno;
    unlink(tmp.c_str());
    fail(path + ": cannot rename " + tmp + " into place (" + std::strerror(e) + ")");
  }
}

std::unique_ptr<NativeGraph> NativeGraph::load(const std::string& path) {
  const ReadOnlyFile file(path);
  const int fd = file.fd();
  const size_t size = file.size();
  Header h{};
  if (size < kHeaderBytes || pread(fd, &h, sizeof h, 0) != static_cast<ssize_t>(sizeof h) || std::memcmp(h.magic, kMagic, 7) != 0)
    fail(path + ": not a graph file (no WMCSR64 header)");
  if (h.magic[7] != kMagic[7])
    fail(path + ": a graph file of format " + std::to_string(static_cast<int>(h.magic[7])) + "; this version reads format " +
         std::to_string(static_cast<int>(kMagic[7])) + " (save the graph again from its source)");
  if (h.numVertices > static_cast<uint64_t>(kMaxVertices) || h.numEdges > (uint64_t{1} << 40) || h.metaBytes > (uint64_t{1} << 30))
    fail(path + ": the header's sizes are out of range (" + std::to_string(h.numVertices) + " vertices, " + std::to_string(h.numEdges) +
         " edges)");
  const Header want = layout(static_cast<int64_t>(h.numVertices), static_cast<int64_t>(h.numEdges), h.metaBytes);
  if (h.headerBytes != want.headerBytes || h.rowPtrOffset != want.rowPtrOffset || h.colIdxOffset != want.colIdxOffset ||
      h.metaOffset != want.metaOffset || h.fileBytes != want.fileBytes)
    fail(path + ": the header's layout is inconsistent");
  if (size != h.fileBytes)
    fail(path + ": " + std::to_string(size) + " bytes, the header says " + std::to_string(h.fileBytes) +
         (size < h.fileBytes ? " (truncated)" : " (extra bytes)"));
  // Every byte is checked: the padding after the header and after the offsets must be zeros (the checksum covers the rest).
  const size_t rowPtrEnd = h.rowPtrOffset + (h.numVertices + 1) * 8;
  for (const auto& [from, to] : {std::pair<size_t, size_t>{sizeof h, kHeaderBytes}, {rowPtrEnd, h.colIdxOffset}}) {
    std::vector<uint8_t> pad(to - from);
    if (!pad.empty() && pread(fd, pad.data(), pad.size(), static_cast<off_t>(from)) != static_cast<ssize_t>(pad.size()))
      fail(path + ": cannot read its padding");
    for (const uint8_t b : pad)
      if (b != 0) fail(path + ": checksum mismatch (the file is damaged or was changed: padding is not zero)");
  }
  auto g = std::unique_ptr<NativeGraph>(new NativeGraph());
  g->numVertices_ = static_cast<int64_t>(h.numVertices);
  g->numEdges_ = static_cast<int64_t>(h.numEdges);
  g->rowPtr_ = PageArray::mapFile(fd, h.rowPtrOffset, static_cast<size_t>(g->numVertices_ + 1) * 8, path);
  g->colIdx_ = PageArray::mapFile(fd, h.colIdxOffset, static_cast<size_t>(g->numEdges_) * 4, path);
  g->meta_.resize(h.metaBytes);
  if (h.metaBytes && pread(fd, g->meta_.data(), h.metaBytes, static_cast<off_t>(h.metaOffset)) != static_cast<ssize_t>(h.metaBytes))
    fail(path + ": cannot read its note");
  if (g->checksum() != h.checksum) fail(path + ": checksum mismatch (the file is damaged or was changed)");
  // The structure, checked as well: a file is untrusted input, and the samplers index with these arrays.
  const int64_t n = g->numVertices_, m = g->numEdges_;
  const int64_t* rp = g->rowPtr();
  const int32_t* c = g->colIdx();
  if (rp[0] != 0 || rp[n] != m) fail(path + ": row offsets must run from 0 to the edge count");
  std::atomic<bool> ok{true};
  parallelFor(n, 1 << 16, [&](int64_t b, int64_t e) {
    for (int64_t v = b; v < e && ok.load(std::memory_order_relaxed); ++v)
      if (rp[v + 1] < rp[v] || rp[v + 1] > m) ok = false;
  });
  if (!ok) fail(path + ": row offsets decrease or pass the edge count");
  parallelFor(m, 1 << 20, [&](int64_t b, int64_t e) {
    bool mine = true;
    for (int64_t i = b; i < e; ++i) mine &= c[i] >= 0 && c[i] < n;
    if (!mine) ok = false;
  });
  if (!ok) fail(path + ": a column names a vertex outside [0, " + std::to_string(n) + ")");
  return g;
}

}  // namespace host
}  // namespace wm
