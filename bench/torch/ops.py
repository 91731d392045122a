# PyTorch eager side of `npm run bench:ops`: the same measurements on the
# same GPU, printed as one JSON line.
import json
import statistics
import sys
import time

import torch


def tiny_adds(device, n):
    a = torch.rand(16, device=device)
    b = torch.rand(16, device=device)
    for _ in range(200):
        c = torch.add(a, b)
    if device == "cuda":
        torch.cuda.synchronize()
    t0 = time.perf_counter()
    for _ in range(n):
        c = torch.add(a, b)
    if device == "cuda":
        torch.cuda.synchronize()
    return (time.perf_counter() - t0) / n * 1e6


def matmul(device, reps, dense=False):
    a = torch.randn(4096, 128, device=device)
    b = torch.randn(128, 128, device=device)
    bias = torch.randn(128, device=device)
    times = []
    for i in range(reps + 10):
        if device == "cuda":
            torch.cuda.synchronize()
        t0 = time.perf_counter()
        # A Dense layer's forward as PyTorch writes it: one addmm (bias fused into the GEMM), then ReLU.
        c = torch.relu(torch.addmm(bias, a, b)) if dense else a @ b
        if device == "cuda":
            torch.cuda.synchronize()
        if i >= 10:
            times.append(time.perf_counter() - t0)
    return statistics.median(times) * 1e6


def main():
    device = "cuda" if torch.cuda.is_available() else "cpu"
    # Full float32 like ours (no TF32), so the matmul compares like for like.
    torch.backends.cuda.matmul.allow_tf32 = False
    n = int(sys.argv[1]) if len(sys.argv) > 1 else 10000
    out = {
        "torch": torch.__version__,
        "device": torch.cuda.get_device_name(0) if device == "cuda" else "cpu",
        "addUs": statistics.median(tiny_adds(device, n) for _ in range(5)),
        "matmulUs": matmul(device, 200),
        "denseUs": matmul(device, 200, dense=True),
    }
    print(json.dumps(out))


main()
