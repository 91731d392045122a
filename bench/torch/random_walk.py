# PyTorch side of `npm run bench:walks`: the same walks and node2vec epoch on
# the same graphs (CSR arrays written by bench/random_walk.ts) and GPU.
# Walks as vectorised tensor ops (what a PyTorch user writes without an
# extension: a few ops per step; node2vec by rejection, edges tested with
# searchsorted over sorted (row, col) keys), and torch_cluster's CUDA kernel
# when it is installed. One JSON line.
import json
import os
import sys
import time

import numpy as np
import torch

from timing import synced_median_ms


def load(d, name, dev):
    rp = torch.from_numpy(np.fromfile(os.path.join(d, f"{name}_row_ptr.i32"), dtype=np.int32).astype(np.int64)).to(dev)
    col = torch.from_numpy(np.fromfile(os.path.join(d, f"{name}_col_idx.i32"), dtype=np.int32).astype(np.int64)).to(dev)
    return rp, col


def walker(rp, col, p, q):
    n = rp.numel() - 1
    deg = rp[1:] - rp[:-1]
    keys = torch.repeat_interleave(torch.arange(n, device=rp.device), deg) * n + col  # sorted: rows in order, each sorted
    top = max(1 / p, 1.0, 1 / q)
    last = max(col.numel() - 1, 0)

    def draw(cur):
        d = deg[cur]
        off = (torch.rand(cur.numel(), device=cur.device) * d).long()
        nxt = col[(rp[cur] + off).clamp(max=last)]
        return torch.where(d > 0, nxt, cur)

    def walk(starts, length):
        out = [starts]
        prev, cur = None, starts
        for _ in range(1, length):
            if prev is None or (p == 1 and q == 1):
                nxt = draw(cur)
            else:
                nxt = cur.clone()
                todo = torch.nonzero(deg[cur] > 0).squeeze(1)
                while todo.numel() > 0:
                    x = draw(cur[todo])
                    pv = prev[todo]
                    k = pv * n + x
                    i = torch.searchsorted(keys, k).clamp(max=last)
                    w = torch.where(x == pv, 1 / p, torch.where(keys[i] == k, 1.0, 1 / q))
                    ok = torch.rand(todo.numel(), device=x.device) * top < w
                    nxt[todo[ok]] = x[ok]
                    todo = todo[~ok]
            out.append(nxt)
            prev, cur = cur, nxt
        return torch.stack(out, 1)

    return walk


def main():
    d, length, cases, train = sys.argv[1], int(sys.argv[2]), json.loads(sys.argv[3]), json.loads(sys.argv[4])
    dev = "cuda"
    rp, col = load(d, "walk", dev)
    n = rp.numel() - 1
    starts = torch.arange(n, device=dev)
    walk_ms = {"torch ops": [synced_median_ms(lambda: walker(rp, col, c["p"], c["q"])(starts, length), 10, 2) for c in cases]}
    try:
        import torch_cluster  # noqa: F401
        rw = torch.ops.torch_cluster.random_walk
        walk_ms["torch_cluster"] = [synced_median_ms(lambda: rw(rp, col, starts, length - 1, c["p"], c["q"]), 10, 2) for c in cases]
    except Exception:
        pass

    # One node2vec epoch, as trainNode2Vec runs it.
    rp, col = load(d, "train", dev)
    n = rp.numel() - 1
    walk = walker(rp, col, train["p"], train["q"])
    dim, L, win, neg, batch = train["dim"], train["walkLength"], train["window"], train["negatives"], train["batchSize"]
    torch.manual_seed(0)

    def tables():
        center = torch.nn.Embedding(n, dim, sparse=True).to(dev)
        context = torch.nn.Embedding(n, dim, sparse=True).to(dev)
        with torch.no_grad():
            center.weight.normal_(0, dim ** -0.5)
            context.weight.normal_(0, 1e-3)
        opt = torch.optim.SparseAdam(list(center.parameters()) + list(context.parameters()), lr=train["learningRate"])
        return center, context, opt

    def epoch(center, context, opt):
        order = torch.randperm(n * train["walksPerVertex"], device=dev) % n
        total, pairs, steps = torch.zeros((), device=dev), 0, 0
        for b in range(0, order.numel(), batch):
            w = walk(order[b:b + batch], L)
            cs, xs = [], []
            for k in range(1, min(win, L - 1) + 1):
                left, right = w[:, :L - k].reshape(-1), w[:, k:].reshape(-1)
                cs += [left, right]
                xs += [right, left]
            c, x = torch.cat(cs), torch.cat(xs)
            negs = torch.randint(0, n, (c.numel() * neg,), device=dev)
            rows = center(c)  # looked up once, as trainNode2Vec does
            pos = (rows * context(x)).sum(1)
            ng = (rows.repeat(neg, 1) * context(negs)).sum(1)
            loss = (torch.nn.functional.softplus(-pos).sum() + torch.nn.functional.softplus(ng).sum()) / c.numel()
            opt.zero_grad()
            loss.backward()
            opt.step()
            total += loss.detach()
            pairs += c.numel()
            steps += 1
        return (total / steps).item(), pairs

    epoch(*tables())  # warm-up; the timed epoch starts from fresh tables, as ours does
    fresh = tables()
    torch.cuda.synchronize()
    t0 = time.perf_counter()
    loss, pairs = epoch(*fresh)
    torch.cuda.synchronize()
    seconds = time.perf_counter() - t0
    print(json.dumps({"torch": torch.__version__, "device": torch.cuda.get_device_name(), "walkMs": walk_ms,
                      "trainSeconds": seconds, "trainPairs": pairs, "trainLoss": loss}))


if __name__ == "__main__":
    main()
