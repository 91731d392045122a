#!/bin/bash
# On a machine of 2 or more GPUs: bench:allreduce's automatic path (one wire,
# no PyTorch, no forced paths) under each all-reduce setting given, alternated
# `rounds` times, one line per setting and round: µs per call by size.
# Usage: bash scripts/ar-sweep.sh rounds wire sizes "NAME=VALUE ..." ...  (an empty string: the defaults)
set -uo pipefail
export NCCL_NVLS_ENABLE=0
rounds=$1 wire=$2 sizes=$3
shift 3
echo "wire $wire; µs per call at $sizes bytes"
for ((k = 1; k <= rounds; ++k)); do
  for setting in "$@"; do
    line=$(env $setting BENCH_TORCH=0 BENCH_FORCED=0 BENCH_WIRES=$wire BENCH_SIZES=$sizes BENCH_OUT=/tmp/ar-sweep.json \
           node dist/bench/allreduce.js 2>&1 | awk -F'|' -v w=" $wire " '$2 == w {gsub(/ \([0-9]+\)/, "", $4); printf "%s/%s ", $4, $6}')
    printf '%-40s %s\n' "${setting:-defaults}" "$line"
  done
done
