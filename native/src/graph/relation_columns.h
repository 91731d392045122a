// R-GAT's weight columns (rgat_pass.ts): relation r's W_r [inDim, heads * units], its attention vectors folded
// into it (W_r a_src_r and W_r a_dst_r, [inDim, heads] each: the sum over a head's units of W_r times a), and the
// root matrix [inDim, rootOut], written transposed as blocks of rows of one [outRows, inDim] matrix, where the
// layer's products read them; and the gradient of that matrix folded back into W, a_src, a_dst and root.
//
// blocks: relation r's three first rows, [3 r] W_r^T's (heads * units rows), [3 r + 1] (W_r a_src_r)^T's and
// [3 r + 2] (W_r a_dst_r)^T's (heads rows each), -1 where the layer has none; rootStarts: the first row of each copy
// of root^T (rootOut rows). The blocks lie within the matrix and do not overlap; its other rows are left as they are.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "wm/op_registry.h"

namespace wm {

struct RelationBlocks {
  std::vector<int32_t> start;  // 3 R entries
  std::vector<int32_t> roots;
};

// The blocks and root copies of arguments `blocksArg` and `blocksArg + 1`, each checked to lie within outRows rows and
// to overlap no other.
inline RelationBlocks relationBlocks(const OpArgs& a, size_t blocksArg, int64_t relations, int64_t heads, int64_t units, int64_t rootOut,
                                     int64_t outRows) {
  RelationBlocks b;
  const std::vector<int64_t> s = a.dims(blocksArg, "blocks"), roots = a.dims(blocksArg + 1, "rootStarts");
  if (static_cast<int64_t>(s.size()) != 3 * relations)
    a.reject(blocksArg, "blocks",
             "must hold 3 entries a relation (" + std::to_string(3 * relations) + "), got " + std::to_string(s.size()));
  if (!roots.empty() && rootOut == 0) a.reject(blocksArg + 1, "rootStarts", "must be empty without a root (rootOut 0)");
  std::vector<uint8_t> used(static_cast<size_t>(outRows), 0);
  auto claim = [&](size_t arg, const char* name, size_t k, int64_t first, int64_t rows) {
    if (first < 0 || first > outRows - rows)
      a.reject(arg, name,
               "entry " + std::to_string(k) + " (" + std::to_string(first) + ") must start a block of " + std::to_string(rows) +
                   " rows within the matrix's " + std::to_string(outRows));
    for (int64_t r = first; r < first + rows; ++r) {
      if (used[r]) a.reject(arg, name, "entry " + std::to_string(k) + "'s block overlaps another at row " + std::to_string(r));
      used[r] = 1;
    }
  };
  for (size_t k = 0; k < s.size(); ++k) {
    if (s[k] == -1) continue;
    claim(blocksArg, "blocks", k, s[k], k % 3 == 0 ? heads * units : heads);
  }
  for (size_t k = 0; k < roots.size(); ++k) claim(blocksArg + 1, "rootStarts", k, roots[k], rootOut);
  b.start.assign(s.begin(), s.end());
  b.roots.assign(roots.begin(), roots.end());
  return b;
}

// The sizes and blocks both ops take: relations, inDim, heads, units and rootOut at arguments 4-8, blocks and rootStarts
// at 9-10, the matrix's rows at `outRowsArg`.
struct RelationArgs {
  int64_t relations, inDim, heads, units, rootOut, outRows;
  RelationBlocks blocks;
  int64_t wide() const { return heads * units; }
};

inline RelationArgs relationArgs(const OpArgs& a, size_t outRowsArg) {
  RelationArgs r{a.count(4, "relations"),
                 a.count(5, "inDim"),
                 a.count(6, "heads"),
                 a.count(7, "units"),
                 a.count(8, "rootOut"),
                 a.count(outRowsArg, "outRows"),
                 {}};
  r.blocks = relationBlocks(a, 9, r.relations, r.heads, r.units, r.rootOut, r.outRows);
  return r;
}

}  // namespace wm
