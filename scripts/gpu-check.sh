#!/bin/bash
# On a GPU machine (see DEVELOPERS.md): kernel checks, conformance, benchmarks.
# Usage: bash scripts/gpu-check.sh [tests|conformance|bench|all]...
set -uo pipefail
export NCCL_NVLS_ENABLE=0
out=${OUT:-/tmp/wm-out}
mkdir -p "$out"
nvidia-smi --query-gpu=name,memory.total,driver_version --format=csv,noheader
status=0
for what in "${@:-all}"; do
  case $what in
    tests|all) npm run -s test:gpu 2>&1 | tee "$out/test-gpu.log" | tail -60 || status=1 ;;&
    conformance|all) node dist/test/conformance/run.js 2>&1 | tee "$out/conformance.log" | tail -25 || status=1 ;;&
    bench|all) node dist/bench/ops.js 2>&1 | tee "$out/bench-ops.log" | tail -30 || status=1 ;;
  esac
done
exit $status
