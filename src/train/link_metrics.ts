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
