// Link prediction metrics: ROC AUC (rank statistic, ties counted half) and
// Hits@K as OGB defines it (the share of positive pairs scoring above the
// K-th best negative).

export function rocAuc(pos: ArrayLike<number>, neg: ArrayLike<number>): number {
  const all = [...Array.from(pos, (s) => [s, 1] as const), ...Array.from(neg, (s) => [s, 0] as const)].sort((x, y) => x[0] - y[0]);
  let rankSum = 0;
  for (let i = 0; i < all.length;) {
    let j = i;
    while (j < all.length && all[j][0] === all[i][0]) ++j;
    const avgRank = (i + 1 + j) / 2; // 1-based ranks i+1..j share their mean
    for (let k = i; k < j; ++k) if (all[k][1] === 1) rankSum += avgRank;
    i = j;
  }
  const p = pos.length,
    n = neg.length;
  return (rankSum - (p * (p + 1)) / 2) / (p * n);
}

export function hitsAtK(pos: ArrayLike<number>, neg: ArrayLike<number>, k: number): number {
  if (neg.length < k) return 1;
  const kth = Array.from(neg).sort((a, b) => b - a)[k - 1];
  let hits = 0;
  for (let i = 0; i < pos.length; ++i) if (pos[i] > kth) ++hits;
  return hits / pos.length;
}

/**
 * Mean reciprocal rank of each positive among the negatives: 1 / (1 + the negatives scoring above it, ties
 * counted half), averaged over the positives (OGB's MRR, with one shared list of negatives).
 */
export function meanReciprocalRank(pos: ArrayLike<number>, neg: ArrayLike<number>): number {
  if (pos.length === 0) return 0;
  const sorted = Float64Array.from(neg).sort();
  // Negatives strictly above p, and those equal to it, by binary search.
  const above = (p: number, strict: boolean) => {
    let lo = 0,
      hi = sorted.length;
    while (lo < hi) {
      const mid = (lo + hi) >> 1;
      if (strict ? sorted[mid] <= p : sorted[mid] < p) lo = mid + 1;
      else hi = mid;
    }
    return sorted.length - lo;
  };
  let sum = 0;
  for (let i = 0; i < pos.length; ++i) {
    const higher = above(pos[i], true),
      ties = above(pos[i], false) - higher;
    sum += 1 / (1 + higher + ties / 2);
  }
  return sum / pos.length;
}
