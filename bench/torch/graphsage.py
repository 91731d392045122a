# PyTorch side of `npm run bench:graphsage` and `npm run bench:papers100m`: the
# same model and sampling as ours, on one GPU, over the graph the Node side
# saved: a folder (saveCsr: raw int32 row_ptr / col_idx beside header.json), or
# a NativeCsr file (`*.wmcsr`: int64 row offsets and int32 columns at the
# offsets its header gives, mapped with numpy, not read into Python lists). Everything per step runs on
# the GPU: seeds, neighbour sampling (uniform with replacement, a vertex
# without neighbours samples itself), unique-and-relabel (torch.unique), the
# embedding lookup, 2 GraphSAGE mean layers, sparse SGD on the embeddings and
# Adam on the dense weights. Prints one line: RESULT {json}.
# Usage: graphsage.py <graph dir> <batch> <steps> <fanouts> <dim> <classes> <lr> [windows] [features] [layers]
# (the median of `windows` timed windows of `steps` steps is reported). layers: `torch` (two
# nn.Linear per layer over gathered neighbours, the default) or `pyg` (torch-geometric's SAGEConv,
# mean aggregation with its root weight, over each sampled block as a bipartite edge_index: PyG has
# no sampler here without pyg-lib, so it is fed the same samples).
import json
import os
import sys
import time

import numpy as np
import torch

# The matmul precision the bench's own side runs with (bench_util.ts' setBenchMatmulPrecision).
torch.set_float32_matmul_precision(os.environ.get("BENCH_MATMUL_PRECISION", "highest"))


def native_csr(path, dev):
    """A NativeCsr file's offsets (int64) and columns (int32) on `dev`, copied in slices from the mapping."""
    head = np.fromfile(path, dtype="<u8", count=10)
    if bytes(np.array(head[:1]).view(np.uint8)[:7]) != b"WMCSR64":
        raise ValueError(f"{path}: not a NativeCsr file")
    n, m, row_at, col_at = (int(x) for x in head[2:6])
    mm = np.memmap(path, dtype=np.uint8, mode="r")
    rowptr = torch.from_numpy(np.frombuffer(mm, dtype="<i8", count=n + 1, offset=row_at).copy()).to(dev)
    col = torch.empty(m, dtype=torch.int32, device=dev)
    cols = np.frombuffer(mm, dtype="<i4", count=m, offset=col_at)
    step = 1 << 28
    for at in range(0, m, step):
        col[at:at + step].copy_(torch.from_numpy(cols[at:at + step].copy()))
    return rowptr, col, n


def sampler(rowptr, col, gen):
    """sample(nodes, k): k neighbours of each node drawn uniformly with replacement, [nodes, k] (a node without
    neighbours samples itself)."""
    dev = rowptr.device

    def sample(nodes, k):
        start = rowptr[nodes]
        deg = rowptr[nodes + 1] - start
        r = torch.rand(nodes.numel(), k, device=dev, generator=gen)
        pick = torch.minimum((r * deg[:, None]).long(), (deg - 1).clamp(min=0)[:, None])
        nb = col[(start[:, None] + pick).clamp(max=col.numel() - 1)].long()
        return torch.where(deg[:, None] > 0, nb, nodes[:, None])

    return sample


def sampled_blocks(seeds, fanouts, sample):
    """The input rows' ids and, input layer first, each layer's (its outputs' positions, [outputs, k] neighbours'
    positions) among its inputs: each hop's outputs and draws relabelled by torch.unique."""
    nodes, blocks = seeds, []
    for k in fanouts:
        nb = sample(nodes, k)
        uniq, inv = torch.unique(torch.cat([nodes, nb.flatten()]), return_inverse=True)
        blocks.insert(0, (inv[: nodes.numel()], inv[nodes.numel():].view(nodes.numel(), k)))
        nodes = uniq
    return nodes, blocks


def load_ours_weights(convs, load):
    """Ours' GraphSAGE weights into PyG SAGEConv layers: `load(name)` gives init_{i}.npy's array, ours' order (root kernel,
    neighbours' kernel, bias a layer, [in, out] kernels); PyG's lin_r is the root, lin_l the neighbours with the bias."""
    with torch.no_grad():
        for l, conv in enumerate(convs):
            conv.lin_r.weight.copy_(torch.from_numpy(load(f"init_{3 * l}.npy")).t())
            conv.lin_l.weight.copy_(torch.from_numpy(load(f"init_{3 * l + 1}.npy")).t())
            conv.lin_l.bias.copy_(torch.from_numpy(load(f"init_{3 * l + 2}.npy")))


def pyg_layer(conv, h, self_idx, nb_idx):
    """A PyG conv over one block, bipartite: sources are every row of h, targets the block's outputs; edges output <-
    sampled neighbour."""
    k = nb_idx.shape[1]
    dst = torch.arange(self_idx.numel(), device=h.device).repeat_interleave(k)
    edge_index = torch.stack([nb_idx.flatten(), dst])
    return conv((h, h[self_idx]), edge_index, size=(h.shape[0], self_idx.numel()))


def main():
    folder, batch, steps = sys.argv[1], int(sys.argv[2]), int(sys.argv[3])
    fanouts = [int(f) for f in sys.argv[4].split(",")]
    dim, classes, lr = int(sys.argv[5]), int(sys.argv[6]), float(sys.argv[7])
    dev = torch.device("cuda")
    t0 = time.perf_counter()
    if folder.endswith(".wmcsr"):
        rowptr, col, n = native_csr(folder, dev)
    else:
        header = json.load(open(os.path.join(folder, "header.json")))
        n = header["numVertices"]
        rowptr = torch.from_numpy(np.fromfile(os.path.join(folder, "row_ptr.i32"), dtype=np.int32)).to(dev).long()
        col = torch.from_numpy(np.fromfile(os.path.join(folder, "col_idx.i32"), dtype=np.int32)).to(dev)
        assert rowptr.numel() == n + 1 and col.numel() == header["numEdges"]
    load_seconds = time.perf_counter() - t0

    gen = torch.Generator(device=dev)
    gen.manual_seed(3)
    # features > 0: fixed float16 node features (WholeGraph's papers100M setting) instead of a learnable table.
    features = int(sys.argv[9]) if len(sys.argv) > 9 else 0
    if features > 0:
        # Drawn in float16 where it lives: a float32 draw of papers100M's table would need 57 GB at once.
        feat = torch.rand(n, features, device=dev, generator=gen, dtype=torch.float16).mul_(2).sub_(1)
        emb = None
    else:
        emb = torch.nn.Embedding(n, dim, sparse=True, device=dev)
        with torch.no_grad():
            emb.weight.normal_(0.0, 0.1, generator=gen)
    impl = sys.argv[10] if len(sys.argv) > 10 else "torch"
    layers = torch.nn.ModuleList()
    for i in range(len(fanouts)):
        out = classes if i == len(fanouts) - 1 else dim
        inp = features if (i == 0 and features > 0) else dim
        if impl == "pyg":
            from torch_geometric.nn import SAGEConv

            layers.append(SAGEConv(inp, out, aggr="mean", root_weight=True, bias=True))
        else:
            layers.append(torch.nn.ModuleDict({"self": torch.nn.Linear(inp, out, bias=True), "neigh": torch.nn.Linear(inp, out, bias=False)}))
    layers.to(dev)
    sparse_opt = torch.optim.SGD(emb.parameters(), lr=lr) if emb is not None else None
    dense_opt = torch.optim.Adam(layers.parameters(), lr=lr)

    sample = sampler(rowptr, col, gen)

    def step():
        seeds = torch.unique(torch.randint(n, (batch + batch // 8,), device=dev, generator=gen))[:batch]
        nodes, blocks = sampled_blocks(seeds, fanouts, sample)
        h = emb(nodes) if emb is not None else feat[nodes].float()
        for i, (self_idx, nb_idx) in enumerate(blocks):
            if impl == "pyg":
                h = pyg_layer(layers[i], h, self_idx, nb_idx)
            else:
                h = layers[i]["self"](h[self_idx]) + layers[i]["neigh"](h[nb_idx].mean(1))
            if i < len(blocks) - 1:
                h = torch.relu(h)
        loss = torch.nn.functional.cross_entropy(h, seeds % classes)
        if sparse_opt is not None:
            sparse_opt.zero_grad()
        dense_opt.zero_grad()
        loss.backward()
        if sparse_opt is not None:
            sparse_opt.step()
        dense_opt.step()

    # Untimed steps first (argument 11, default 3): the allocator and the kernels' first calls settle.
    for _ in range(int(sys.argv[11]) if len(sys.argv) > 11 else 3):
        step()
    torch.cuda.synchronize()
    windows = []
    for _ in range(int(sys.argv[8]) if len(sys.argv) > 8 else 1):
        t0 = time.perf_counter()
        for _ in range(steps):
            step()
        torch.cuda.synchronize()
        windows.append(time.perf_counter() - t0)
    seconds = sorted(windows)[len(windows) // 2]
    print("RESULT " + json.dumps({"seedsPerSecond": batch * steps / seconds, "msPerStep": 1000 * seconds / steps,
                                  "torch": torch.__version__, "loadSeconds": load_seconds, "layers": impl,
                                  **({"pyg": __import__("torch_geometric").__version__} if impl == "pyg" else {})}))


if __name__ == "__main__":
    main()
