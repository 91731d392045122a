#!/bin/bash
# On a machine with 2+ GPUs: where data-parallel GraphSAGE loses its scaling.
# Runs bench:graphsage on one graph with parts of the sharing taken out
# (see bench/graphsage.ts), then prints each run's table rows.
# Usage: bash scripts/scaling-check.sh [scale]   (results under $OUT)
set -uo pipefail
export NCCL_NVLS_ENABLE=0
out=${OUT:-/tmp/wm-out}
mkdir -p "$out"
scale=${1:-20}
export BENCH_SCALE=$scale BENCH_GRAPH_DIR=/tmp/wm-scaling-$scale BENCH_KEEP_GRAPH=1 BENCH_TORCH=0
run() {
  local name=$1; shift
  env "$@" BENCH_OUT="$out/graphsage-$name.json" node dist/bench/graphsage.js > "$out/graphsage-$name.log" 2>&1
  echo "== $name ($*)"; grep -E "^ours|^R-MAT" "$out/graphsage-$name.log"
}
run shared
run own-table BENCH_EMBEDDING_MEMORY=device
run own-table-graph BENCH_EMBEDDING_MEMORY=device BENCH_GRAPH_MEMORY=device
run alone BENCH_EMBEDDING_MEMORY=device BENCH_GRAPH_MEMORY=device BENCH_ALLREDUCE=0
run profile BENCH_PROFILE="$out/profile.txt" BENCH_WINDOWS=1
cut -c1-400 "$out/profile.txt"
