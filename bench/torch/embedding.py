# PyTorch side of `npm run bench:embedding`: device copy, embedding gather
# (F.embedding and index_select) and index_add_ at the sizes ours uses, on
# the same GPU. Prints one JSON line.
import json
import sys

import torch
import torch.nn.functional as F


def timed(fn, reps=20, warm=3):
    for _ in range(warm):
        fn()
    torch.cuda.synchronize()
    times = []
    for _ in range(reps):
        a, b = torch.cuda.Event(enable_timing=True), torch.cuda.Event(enable_timing=True)
        a.record()
        fn()
        b.record()
        torch.cuda.synchronize()
        times.append(a.elapsed_time(b))
    times.sort()
    return times[len(times) // 2]


def main():
    rows = int(sys.argv[1]) if len(sys.argv) > 1 else 10_000_000
    n = int(sys.argv[2]) if len(sys.argv) > 2 else 1_000_000
    dev = "cuda"
    out = {"torch": torch.__version__, "device": torch.cuda.get_device_name(0), "results": []}
    buf = torch.empty(1 << 30, dtype=torch.uint8, device=dev)  # 1 GiB
    dst = torch.empty_like(buf)
    ms = timed(lambda: dst.copy_(buf))
    out["copyTBs"] = 2 * buf.numel() / ms / 1e9
    del buf, dst
    g = torch.Generator(device=dev).manual_seed(1)
    idx = torch.randint(0, rows, (n,), device=dev, generator=g)
    for dim, dtype in [(32, torch.float32), (128, torch.float32), (512, torch.float32), (128, torch.float16), (128, torch.bfloat16)]:
        table = torch.randn(rows, dim, device=dev).to(dtype)
        ms = timed(lambda: F.embedding(idx, table))
        esz = table.element_size()
        moved = n * dim * (2 * esz) + n * 8
        out["results"].append({"op": "gather", "dim": dim, "dtype": str(dtype).split(".")[1], "ms": ms, "TBs": moved / ms / 1e9})
        ms = timed(lambda: table.index_select(0, idx))
        out["results"].append({"op": "index_select", "dim": dim, "dtype": str(dtype).split(".")[1], "ms": ms, "TBs": moved / ms / 1e9})
        if dtype == torch.float32 and dim == 128:
            src = torch.randn(n, dim, device=dev)
            ms = timed(lambda: table.index_add_(0, idx, src))
            # grads read, rows read and written
            moved = n * dim * 4 * 3 + n * 8
            out["results"].append({"op": "index_add_", "dim": dim, "dtype": "float32", "ms": ms, "TBs": moved / ms / 1e9})
        del table
        torch.cuda.empty_cache()
    print(json.dumps(out))


main()
