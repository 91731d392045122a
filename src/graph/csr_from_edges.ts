// CSR rows from an edge list in TypeScript (no addon): each row sorted, duplicates and self loops dropped, and
// with `symmetric` each edge's reverse added. The reference of the native builder (CsrGraph.fromEdges), and what a
// loader's worker thread builds its batches' rows with.

/** The rows of n vertices, edge i an entry dst[i] of row src[i] (and, with symmetric, src[i] of row dst[i]). */
export function csrFromEdges(
  n: number,
  src: ArrayLike<number>,
  dst: ArrayLike<number>,
  symmetric: boolean,
): {rowPtr: Int32Array; colIdx: Int32Array} {
  const m = src.length;
  const counts = new Int32Array(n + 1);
  for (let i = 0; i < m; ++i) {
    ++counts[src[i] + 1];
    if (symmetric) ++counts[dst[i] + 1];
  }
  for (let v = 0; v < n; ++v) counts[v + 1] += counts[v];
  const fill = counts.slice(0, n);
  const col = new Int32Array(counts[n]);
  for (let i = 0; i < m; ++i) {
    col[fill[src[i]]++] = dst[i];
    if (symmetric) col[fill[dst[i]]++] = src[i];
  }
  // Each row sorted, then compacted in place: repeats and self loops dropped.
  const rowPtr = new Int32Array(n + 1);
  let out = 0;
  for (let v = 0; v < n; ++v) {
    const row = col.subarray(counts[v], counts[v + 1]).sort();
    let prev = -1;
    for (let k = 0; k < row.length; ++k) {
      const u = row[k];
      if (u !== prev && u !== v) col[out++] = u;
      prev = u;
    }
    rowPtr[v + 1] = out;
  }
  return {rowPtr, colIdx: col.slice(0, out)};
}
