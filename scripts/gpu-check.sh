#!/bin/bash
# On a GPU machine (see DEVELOPERS.md): kernel checks, conformance, benchmarks.
# Usage: bash scripts/gpu-check.sh [tests|testsSplit|conformance|bench|elementwise|embedding|managed|main|all|wholememory|allreduce|graphsage|big|bigGraph|papers100m|papers100mRanks|papers100mAccuracy|hetero|kge|graphs|mag240m|mag240mRanks|kgeRanks|datasetScale|ranks|rowCache|hostGather|launchCost|samplers|step|twoHosts|multi]...
set -uo pipefail
export NCCL_NVLS_ENABLE=0
out=${OUT:-/tmp/wm-out}
mkdir -p "$out"
nvidia-smi --query-gpu=name,memory.total,driver_version --format=csv,noheader
# Without a build every check would fail on the missing addon, one file at a time: stop at once.
if [ ! -f build/Release/wholememory.node ] || [ ! -x build/wm_native_tests ]; then
  echo "gpu-check: no build here (build/Release/wholememory.node, build/wm_native_tests): run bash scripts/build-native-cmake.sh first, or pack a build (scripts/pack-device.sh)" >&2
  exit 2
fi
status=0
for what in "${@:-all}"; do
  case $what in
    tests|all) npm run -s test:gpu 2>&1 | tee "$out/test-gpu.log" | tail -60 || status=1
      # Our own matmul kernel, as used where cuBLAS is absent.
      WM_NO_CUBLAS=1 WM_REQUIRE_GPU=1 npx mocha --grep BatchMatMul 2>&1 | tee "$out/test-gpu-nocublas.log" | tail -4 || status=1 ;;&
    # The GPU suite in less time: every test file but the multi-GPU ones in its own mocha process, WM_TEST_JOBS
    # (default 4) at once, the largest files first, spread over the GPUs; then the files whose cases need several
    # GPUs (whole_memory.test's 2- to 4-rank cases, security.test's) on every GPU. Logs per file under $out/tests.
    testsSplit) gpus=$(nvidia-smi -L | wc -l); jobs=${WM_TEST_JOBS:-4}
      build/wm_native_tests > "$out/native.log" 2>&1 || status=1
      tail -1 "$out/native.log"
      multi=(dist/test/whole_memory.test.js dist/test/security.test.js)
      rm -rf "$out/tests"; mkdir -p "$out/tests"
      ls -S dist/test/*.test.js | grep -v -x -F "${multi[@]/#/-e}" |
        OUT_TESTS="$out/tests" GPUS=$gpus xargs -P "$jobs" -I{} bash -c 'n=$(basename {} .test.js)
          CUDA_VISIBLE_DEVICES=$(( $(cksum <<< "$n" | cut -d" " -f1) % GPUS )) WM_REQUIRE_GPU=1 \
            node node_modules/.bin/mocha --no-config --timeout 120000 --reporter dot {} > "$OUT_TESTS/$n.log" 2>&1 || echo "$n" >> "$OUT_TESTS/failed"'
      WM_REQUIRE_GPU=1 node node_modules/.bin/mocha --no-config --timeout 300000 --reporter dot "${multi[@]}" > "$out/tests/multi-gpu.log" 2>&1 ||
        echo multi-gpu >> "$out/tests/failed"
      for k in passing pending failing; do
        echo "$k $(cat "$out"/tests/*.log | grep -E "^  [0-9]+ $k" | awk '{s += $1} END {print s + 0}')"
      done
      [ -f "$out/tests/failed" ] && { status=1; echo "files with failures: $(tr '\n' ' ' < "$out/tests/failed")"; }
      grep -h -E -A12 "^  [0-9]+\) " "$out"/tests/*.log | head -60 ;;
    conformance|all) node dist/test/conformance/run.js 2>&1 | tee "$out/conformance.log" | tail -25 || status=1 ;;&
    bench|all) BENCH_OUT=$out/bench-ops.json node dist/bench/ops.js 2>&1 | tee "$out/bench-ops.log" | tail -12 || status=1 ;;&
    elementwise|all) BENCH_OUT=$out/bench-elementwise.json node dist/bench/elementwise.js 2>&1 | tee "$out/bench-elementwise.log" | tail -26 || status=1 ;;&
    embedding|all) BENCH_OUT=$out/bench-embedding.json node dist/bench/embedding.js 2>&1 | tee "$out/bench-embedding.log" | tail -16 || status=1 ;;&
    managed|all) BENCH_OUT=$out/bench-managed.json node dist/bench/managed.js 2>&1 | tee "$out/bench-managed.log" | tail -10 || status=1 ;;&
    wholememory) WM_REQUIRE_GPU=1 npx mocha --grep "WholeMemory" 2>&1 | tee "$out/test-wholememory.log" | tail -40 || status=1
      BENCH_OUT=$out/bench-wholememory.json node dist/bench/wholememory.js 2>&1 | tee "$out/bench-wholememory.log" | tail -16 || status=1 ;;
    allreduce) BENCH_OUT=$out/bench-allreduce.json node dist/bench/allreduce.js 2>&1 | tee "$out/bench-allreduce.log" | tail -14 || status=1 ;;
    # Data-parallel GraphSAGE on 1, 2, 4... ranks (every GPU) against PyTorch on one: issue 7's scaling at scale 22.
    graphsage) BENCH_SCALE=${BENCH_SCALE:-22} BENCH_OUT=$out/bench-graphsage.json node dist/bench/graphsage.js 2>&1 |
          tee "$out/bench-graphsage.log" | tail -12 || status=1 ;;
    # The scale benchmark: 100M vertices, 128-wide float32 embeddings in continuous WholeMemory (one run per rank count).
    big) BENCH_SCALE=27 BENCH_VERTICES=100000000 BENCH_EDGE_FACTOR=10 BENCH_REPEATS=${BENCH_REPEATS:-1} \
          BENCH_OUT=$out/bench-graphsage-100m.json node dist/bench/graphsage.js 2>&1 | tee "$out/bench-graphsage-100m.log" | tail -12 || status=1 ;;
    # A native graph past 2^31 CSR entries (~25 GB of host memory): built, copied to the GPU, sampled and aggregated there as on the host.
    bigGraph) WM_BIG_GRAPH=1 WM_REQUIRE_GPU=1 npx mocha --no-config --timeout 1200000 dist/test/native_csr.test.js 2>&1 |
          tee "$out/test-big-graph.log" | tail -16 || status=1 ;;
    # GraphSAGE on a graph shaped like ogbn-papers100M (~3.2B CSR entries, 28 GB of float16 features): one GPU.
    papers100m) BENCH_OUT=$out/bench-papers100m.json node dist/bench/papers100m.js 2>&1 | tee "$out/bench-papers100m.log" | tail -14 || status=1 ;;
    # The typed, knowledge-graph and small-graph benchmarks against PyG, each with its accuracy beside PyG's where it has one.
    hetero) BENCH_OUT=$out/bench-hetero.json node dist/bench/hetero.js 2>&1 | tee "$out/bench-hetero.log" | grep -v "^R-.* steps" | tail -8 || status=1 ;;
    kge) BENCH_OUT=$out/bench-kge.json node dist/bench/kge.js 2>&1 | tee "$out/bench-kge.log" | tail -10 || status=1 ;;
    graphs) BENCH_OUT=$out/bench-graphs.json node dist/bench/graphs.js 2>&1 | tee "$out/bench-graphs.log" | tail -4 || status=1 ;;
    # R-GAT on MAG240M's shape at full size (BENCH_MAG240M_BATCHES timed steps, default 200: the epoch's time from them).
    mag240m) BENCH_MAG240M_BATCHES=${BENCH_MAG240M_BATCHES:-200} BENCH_OUT=$out/bench-mag240m.json node dist/bench/mag240m.js 2>&1 |
          tee "$out/bench-mag240m.log" | grep -v "^R-GAT steps" | tail -8 || status=1 ;;
    # The same on every GPU of the machine, data parallel, the paper features (BENCH_MAG240M_DIM, default 768 as
    # MAG240M's: 187 GB of float16) chunked over the GPUs.
    mag240mRanks) n=$(nvidia-smi -L | wc -l)
      BENCH_MAG240M_DIM=${BENCH_MAG240M_DIM:-768} BENCH_MAG240M_BATCHES=${BENCH_MAG240M_BATCHES:-200} BENCH_OUT=$out/bench-mag240m-ranks.json \
          node dist/bin/tfjs-wm-run.js -n $n dist/bench/mag240m.js 2>&1 | tee "$out/bench-mag240m-ranks.log" | grep -v "R-GAT steps" | tail -8 || status=1 ;;
    # KG embeddings on a Freebase-shaped graph (BENCH_KGE_FRACTION of Freebase's size) on 1, 2, 4... ranks (every
    # GPU): each run's epoch rate, from npm run kge. Each rank trains on 8192 triples a step: every step's batch is
    # shared out and its updates applied together, so it grows with the ranks (as DGL-KE's per-GPU batch). The
    # tables: BENCH_KGE_MEMORY (the launcher's default: continuous).
    kgeRanks) n=$(nvidia-smi -L | wc -l)
      args=(--freebase-shaped "${BENCH_KGE_FRACTION:-0.05}" --model "${BENCH_KGE_MODEL:-transE}" --dim 400 --dtype bfloat16 --epochs 2
            --chunk-size 256 --negatives 256 --optimizer sgd --lr 0.1 --eval-every 0 --no-save --out /tmp/kge-ranks)
      mem=(); [ -n "${BENCH_KGE_MEMORY:-}" ] && mem=(--memory "$BENCH_KGE_MEMORY")
      for (( r = 1; r <= n; r *= 2 )); do
        if (( r == 1 )); then cmd=(node dist/examples/kge.js); else cmd=(node dist/bin/tfjs-wm-run.js -n $r dist/examples/kge.js "${mem[@]}"); fi
        bs=$(( 8192 * r ))
        echo "ranks $r:"; "${cmd[@]}" "${args[@]}" --batch-size $bs 2>&1 | tee "$out/kge-ranks-$r.log" | grep -E "epoch|test|error" || status=1
      done ;;
    # The same graph on every GPU of the machine: one GPU, then data parallel with the features chunked over the GPUs.
    papers100mRanks) n=$(nvidia-smi -L | wc -l)
      BENCH_RUNS=device BENCH_TORCH= BENCH_LAYERWISE_SECONDS=0 BENCH_RANKS=$n BENCH_GRAPH_DIR=/dev/shm BENCH_OUT=$out/bench-papers100m-ranks.json \
          node dist/bench/papers100m.js 2>&1 | tee "$out/bench-papers100m-ranks.log" | tail -14 || status=1 ;;
    # Test accuracy at papers100M's size, ours beside PyG (BENCH_EPOCHS epochs each, default 3).
    papers100mAccuracy) BENCH_GRAPH_DIR=/dev/shm BENCH_OUT=$out/bench-papers100m-accuracy.json node dist/bench/papers100m_accuracy.js 2>&1 |
          tee "$out/bench-papers100m-accuracy.log" | grep -v "^  " | tail -12 || status=1 ;;
    # A folder shaped like ogbn-papers100M (41 GB of .npy and text, a 14 GB graph cache beside it: the disk needs
    # ~60 GB free) loaded with {into: 'native'} twice, its features put in a float16 table in pinned host memory.
    datasetScale) BENCH_LAYOUT=npy BENCH_DIR=${BENCH_DIR:-$PWD/.bench-data/papers100m-folder} BENCH_OUT=$out/bench-dataset-npy.json \
          node dist/bench/dataset_load.js 2>&1 | tee "$out/bench-dataset-npy.log" | tail -14 || status=1 ;;
    # The multi-process tests alone (ranks share the GPUs where there are fewer GPUs than ranks).
    ranks) WM_REQUIRE_GPU=1 npx mocha --no-config --timeout 300000 --grep "across processes" dist/test/whole_memory.test.js 2>&1 |
          tee "$out/test-ranks.log" | tail -40 || status=1 ;;
    # The row cache's tests alone (part of tests too).
    rowCache) WM_REQUIRE_GPU=1 npx mocha --no-config --timeout 300000 dist/test/row_cache.test.js 2>&1 | tee "$out/test-row-cache.log" | tail -30 || status=1 ;;
    # Random rows gathered from pinned host memory against the copy engine's rate (a CUDA probe).
    hostGather) nvcc -O3 -arch=sm_90 -std=c++17 -o /tmp/host_gather bench/probes/host_gather.cu &&
          /tmp/host_gather 2>&1 | tee "$out/host-gather.txt" || status=1 ;;
    # What a launch costs the host against its parameter bytes (a CUDA probe), then one rank's GPU all-reduce call layer by layer.
    launchCost) nvcc -O3 -arch=sm_90 -std=c++17 -o /tmp/launch_params bench/probes/launch_params.cu &&
          /tmp/launch_params 2>&1 | tee "$out/launch-params.txt" || status=1
      node dist/bin/tfjs-wm-run.js -n 1 dist/bench/probes/allreduce_layers.js 2>&1 | tee "$out/allreduce-layers.txt" | tail -18 || status=1 ;;
    # Compact subgraphs against sampling trees (fixed shapes, no wait per step), one rank, same graph.
    samplers) for s in subgraph tree; do
        BENCH_SAMPLER=$s BENCH_SCALE=${BENCH_SCALE:-20} BENCH_RANKS=1 BENCH_TORCH=0 BENCH_REPEATS=${BENCH_REPEATS:-3} BENCH_STEPS=40 \
          BENCH_GRAPH_DIR=/tmp/wm-samplers BENCH_KEEP_GRAPH=1 BENCH_OUT=$out/graphsage-$s.json node dist/bench/graphsage.js 2>&1 |
          tee "$out/graphsage-$s.log" | grep -E "^ours" | sed "s/^/$s: /" || status=1
      done ;;
    # Where one GraphSAGE step's time goes (one rank, scale 20): tfjs kernels, the slowest calls, host µs per addon function, a V8 profile.
    step) BENCH_SCALE=${BENCH_SCALE:-20} BENCH_RANKS=1 BENCH_TORCH=0 BENCH_REPEATS=1 BENCH_STEPS=40 BENCH_WINDOWS=3 BENCH_PROFILE=$out/step-profile.txt \
          BENCH_CPU_PROFILE=$out/step-cpu BENCH_GRAPH_DIR=/tmp/wm-step BENCH_KEEP_GRAPH=1 node dist/bench/graphsage.js 2>&1 | grep -E "^ours" || status=1
      cut -c1-1200 "$out/step-profile.txt" ;;
    # Two simulated hosts (network namespaces; root) with a GPU each: the two-host suite with every GPU visible, and
    # what this machine lets the harness make (uid, a network namespace), said first.
    twoHosts) echo "uid $(id -u)"
      timeout "${TWO_HOSTS_SECONDS:-300}" node node_modules/.bin/mocha --no-config --timeout 200000 dist/test/two_hosts.test.js 2>&1 |
        tee "$out/two-hosts.log" | grep -E "skipped|allreduce|passing|failing|pending|^\s+[0-9]+\) " | head -30 || status=1 ;;
    # Several GPUs: the peer-access matrix, the multi-rank tests, the all-reduce (2 and every GPU, with PyTorch's
    # symmetric-memory and NCCL paths beside it) and data-parallel GraphSAGE with float16 features on 1, 2, 4... GPUs
    # (three repeats, the rank counts taking turns).
    multi) node dist/bin/tfjs-wm-doctor.js 2>&1 | tee "$out/doctor.log" | grep -iE -A8 "peer|nvlink" | head -24
      WM_REQUIRE_GPU=1 timeout "${MULTI_TEST_SECONDS:-300}" npx mocha --grep "rank|GPUs|all-reduce|WholeMemory|data.parallel" 2>&1 |
        tee "$out/test-multi.log" | grep -E "passing|failing|pending|^\s+[0-9]+\) " | head -30 || status=1
      for n in 2 $(nvidia-smi -L | wc -l); do
        BENCH_RANKS=$n BENCH_SIZES=${BENCH_SIZES:-4096,65536,262144,524288,67108864} BENCH_OUT=$out/bench-allreduce-$n.json \
          timeout "${MULTI_AR_SECONDS:-100}" node dist/bench/allreduce.js 2>&1 | tee "$out/bench-allreduce-$n.log" | tail -16 || status=1
      done
      # Three repeats (the scaling is given repeat by repeat); MULTI_FEATURE_CACHE=f: each rank caches f x the rows.
      BENCH_SCALE=${BENCH_SCALE:-22} BENCH_FEATURES=128 BENCH_FEATURE_CACHE=${MULTI_FEATURE_CACHE:-0} BENCH_REPEATS=3 BENCH_WINDOWS=3 \
        BENCH_TORCH=0 BENCH_OUT=$out/bench-graphsage.json timeout "${MULTI_SAGE_SECONDS:-200}" node dist/bench/graphsage.js 2>&1 |
        tee "$out/bench-graphsage.log" | grep -E "^ours|^scaling" | cut -c1-300 || status=1 ;;
    main|all) node dist/examples/node-classification.js --out "$out/main" 2>&1 | tee "$out/main.log" | tail -4 || status=1
      link_data=()  # pack-device.sh carries the graph: ../shared is not on the device machine
      [ -d .device/datasets/cond-mat-2005 ] && link_data=(--data .device/datasets/cond-mat-2005)
      node dist/examples/link-prediction.js --epochs 10 "${link_data[@]}" --out "$out/link" 2>&1 | tee "$out/link.log" | grep -E "vertices|best" || status=1 ;;
  esac
done
exit $status
