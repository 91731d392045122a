# What the PyTorch sides share: the median wall time of a call with the GPU
# synchronised after each, as bench_util.ts's timeMs measures ours.
import statistics
import time

import torch


def synced_median_ms(fn, reps, warm):
    for _ in range(warm):
        fn()
    torch.cuda.synchronize()
    times = []
    for _ in range(reps):
        t0 = time.perf_counter()
        fn()
        torch.cuda.synchronize()
        times.append((time.perf_counter() - t0) * 1e3)
    return statistics.median(times)
