#!/bin/bash
# Two builds of the addon on one GPU, alternated (A B B A): bench:embedding and
# bench:elementwise with each, then each case's time with B over A (median of
# the two runs each). Used to compare a PTX-only build (the pre-Hopper code
# paths, compiled by the driver) with the sm_90a build.
#   bash scripts/arch-ab.sh ADDON_A ADDON_B    (results and logs in $OUT or /tmp/wm-ab)
set -uo pipefail
a=$(realpath "$1"); b=$(realpath "$2")
out=${OUT:-/tmp/wm-ab}; mkdir -p "$out"
export NCCL_NVLS_ENABLE=0
i=0
for which in A B B A; do
  i=$((i + 1)); addon=$a; [ "$which" = B ] && addon=$b
  for bench in embedding elementwise; do
    TFJS_WHOLEMEMORY_ADDON=$addon BENCH_OUT=$out/$bench-$which-$i.json node dist/bench/$bench.js > "$out/$bench-$which-$i.log" 2>&1 ||
      { echo "bench $bench with $which failed:"; tail -20 "$out/$bench-$which-$i.log"; }
  done
done
OUT_DIR=$out node -e '
const fs = require("fs"), path = require("path"), dir = process.env.OUT_DIR;
const runs = (bench, which) => fs.readdirSync(dir).filter((f) => f.startsWith(`${bench}-${which}-`) && f.endsWith(".json"))
  .map((f) => JSON.parse(fs.readFileSync(path.join(dir, f), "utf8")));
const median = (v) => { const s = [...v].sort((x, y) => x - y); return s.length % 2 ? s[(s.length - 1) / 2] : (s[s.length / 2 - 1] + s[s.length / 2]) / 2; };
const rows = [];
const cases = {
  embedding: (r) => Object.fromEntries(r.ours.map((c) => [`${c.op} ${c.dtype} ${c.dim}`, c.ms])),
  elementwise: (r) => Object.fromEntries(r.results.flatMap((w) => r.cases.map((c, k) => [`${c} w${w.width}`, w.ours[k]]))),
};
for (const bench of Object.keys(cases)) {
  const A = runs(bench, "A").map(cases[bench]), B = runs(bench, "B").map(cases[bench]);
  if (!A.length || !B.length) continue;
  for (const k of Object.keys(A[0])) {
    const ma = median(A.map((x) => x[k])), mb = median(B.map((x) => x[k]));
    rows.push({bench, case: k, A_ms: +ma.toFixed(4), B_ms: +mb.toFixed(4), B_over_A: +(mb / ma).toFixed(3)});
  }
}
fs.writeFileSync(path.join(dir, "arch-ab.json"), JSON.stringify(rows, null, 1));
console.table(rows);
'
