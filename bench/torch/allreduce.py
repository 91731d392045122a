# PyTorch side of `npm run bench:allreduce`: dist.all_reduce over NCCL,
# float32, back-to-back calls, median per-call time. Run under torchrun.
import json
import os
import statistics
import time

import torch
import torch.distributed as dist


def main():
    dist.init_process_group("nccl")
    rank, world = dist.get_rank(), dist.get_world_size()
    torch.cuda.set_device(int(os.environ.get("LOCAL_RANK", rank)))
    out = []
    for nbytes in [1 << 10, 1 << 16, 1 << 20, 1 << 24, 1 << 26]:
        x = torch.randn(nbytes // 4, device="cuda")
        for _ in range(10):
            dist.all_reduce(x)
        torch.cuda.synchronize()
        reps = 200 if nbytes <= (1 << 20) else 50
        times = []
        for _ in range(5):
            dist.barrier()
            torch.cuda.synchronize()
            t0 = time.perf_counter()
            for _ in range(reps):
                dist.all_reduce(x)
            torch.cuda.synchronize()
            times.append((time.perf_counter() - t0) / reps * 1e6)
        us = statistics.median(times)
        out.append({"bytes": nbytes, "us": us, "busGBs": 2 * (world - 1) / world * nbytes / us / 1e3})
    if rank == 0:
        print(json.dumps({"torch": torch.__version__, "nccl": ".".join(map(str, torch.cuda.nccl.version())), "ranks": world, "results": out}))
    dist.destroy_process_group()


main()
