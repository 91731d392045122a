# NumPy/OpenBLAS's side of bench/matmul_cpu.ts: the median ms of each product, float32, after warm-up,
# with the threads the caller gives (OPENBLAS_NUM_THREADS, set before NumPy loads).
# Args: a JSON list of [batch, m, n, k, transA, transB] shapes, repetitions. Prints one JSON line.
import json
import sys
import time

import numpy as np

shapes = json.loads(sys.argv[1])
reps = int(sys.argv[2])
rng = np.random.default_rng(1)
out = []
for batch, m, n, k, ta, tb in shapes:
    a = rng.standard_normal((batch, k, m) if ta else (batch, m, k), dtype=np.float32)
    b = rng.standard_normal((batch, n, k) if tb else (batch, k, n), dtype=np.float32)
    A = a.transpose(0, 2, 1) if ta else a
    B = b.transpose(0, 2, 1) if tb else b
    if batch == 1:
        A, B = A[0], B[0]
    for _ in range(3):
        np.matmul(A, B)
    t = []
    for _ in range(reps):
        t0 = time.perf_counter()
        np.matmul(A, B)
        t.append((time.perf_counter() - t0) * 1e3)
    t.sort()
    out.append(t[len(t) // 2])
print(json.dumps({"ms": out, "numpy": np.__version__, "blas": np.show_config(mode="dicts")["Build Dependencies"]["blas"]["name"]}))
