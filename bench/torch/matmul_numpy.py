# NumPy/OpenBLAS's side of bench/matmul_cpu.ts: ms per call of each product, float32, timed as the other
# side is (warm 300 ms, then the median of 9 windows of back-to-back calls of at least 2 ms each), with the
# threads the caller gives (OPENBLAS_NUM_THREADS, set before NumPy loads).
# Args: a JSON list of [batch, m, n, k, transA, transB] shapes. Prints one JSON line.
import json
import sys
import time

import numpy as np

shapes = json.loads(sys.argv[1])
rng = np.random.default_rng(1)
out = []
for batch, m, n, k, ta, tb in shapes:
    a = rng.standard_normal((batch, k, m) if ta else (batch, m, k), dtype=np.float32)
    b = rng.standard_normal((batch, n, k) if tb else (batch, k, n), dtype=np.float32)
    A = a.transpose(0, 2, 1) if ta else a
    B = b.transpose(0, 2, 1) if tb else b
    if batch == 1:
        A, B = A[0], B[0]
    t0 = time.perf_counter()
    np.matmul(A, B)
    once = max(time.perf_counter() - t0, 1e-7)
    for _ in range(max(1, int(0.3 / once))):
        np.matmul(A, B)
    per = max(1, -(-0.002 // once))
    t = []
    for _ in range(9):
        t0 = time.perf_counter()
        for _ in range(int(per)):
            np.matmul(A, B)
        t.append((time.perf_counter() - t0) * 1e3 / per)
    t.sort()
    out.append(t[len(t) // 2])
print(json.dumps({"ms": out, "numpy": np.__version__, "blas": np.show_config(mode="dicts")["Build Dependencies"]["blas"]["name"]}))
