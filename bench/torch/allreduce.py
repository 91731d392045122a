# PyTorch side of `npm run bench:allreduce`: dist.all_reduce over NCCL and
# the symmetric-memory one-shot / two-shot kernels, bfloat16 and float32,
# back-to-back calls, median per-call time; also the two-shot fed from and
# back to a float32 tensor, as ours is. Run under torchrun.
import json
import os
import statistics
import sys
import time

import torch
import torch.distributed as dist

SIZES = [int(s) for s in os.environ.get("BENCH_SIZES", "").split(",") if s]


def timed(fn, reps):
    for _ in range(10):
        fn()
    torch.cuda.synchronize()
    times = []
    for _ in range(5):
        dist.barrier()
        torch.cuda.synchronize()
        t0 = time.perf_counter()
        for _ in range(reps):
            fn()
        torch.cuda.synchronize()
        times.append((time.perf_counter() - t0) / reps * 1e6)
    return statistics.median(times)


def main():
    rank = int(os.environ["RANK"])
    torch.cuda.set_device(int(os.environ.get("LOCAL_RANK", rank)))
    dist.init_process_group("nccl", device_id=torch.device("cuda", torch.cuda.current_device()))
    world = dist.get_world_size()
    symm = None
    try:
        import torch.distributed._symmetric_memory as symm_mem
        symm = symm_mem
    except Exception as e:  # older torch
        print(f"no symmetric memory: {e}", file=sys.stderr)
    group = dist.group.WORLD.group_name
    out = []
    for dtype_name in ["bfloat16", "float32"]:
        dtype = getattr(torch, dtype_name)
        esize = torch.tensor([], dtype=dtype).element_size()
        for nbytes in SIZES:
            n = nbytes // esize
            reps = 200 if nbytes <= (1 << 20) else 50 if nbytes <= (64 << 20) else 10
            row = {"dtype": dtype_name, "bytes": nbytes}
            x = torch.randn(n, device="cuda").to(dtype)
            row["ncclUs"] = timed(lambda: dist.all_reduce(x), reps)
            if symm is not None and nbytes <= (64 << 20):
                try:
                    s = symm.empty(n, dtype=dtype, device="cuda")
                    symm.rendezvous(s, group)
                    s.copy_(x)
                    row["oneShotUs"] = timed(lambda: torch.ops.symm_mem.one_shot_all_reduce(s, "sum", group), reps)
                    row["twoShotUs"] = timed(lambda: torch.ops.symm_mem.two_shot_all_reduce_(s, "sum", group), reps)
                    # What ours does: float32 tensors (tfjs has no bfloat16) reduced on a
                    # `dtype` wire, results back in float32: copied (and converted) into
                    # the symmetric buffer, reduced in place, copied back.
                    xf = torch.randn(n, device="cuda")

                    def from_float32():
                        s.copy_(xf)
                        torch.ops.symm_mem.two_shot_all_reduce_(s, "sum", group)
                        xf.copy_(s)

                    row["twoShotFloat32Us"] = timed(from_float32, reps)
                except Exception as e:
                    print(f"symmetric memory at {nbytes}: {e}", file=sys.stderr)
            out.append(row)
    if rank == 0:
        print(json.dumps({"torch": torch.__version__, "nccl": ".".join(map(str, torch.cuda.nccl.version())), "ranks": world, "results": out}))
    dist.destroy_process_group()


main()
