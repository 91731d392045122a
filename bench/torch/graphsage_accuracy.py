# PyTorch side of `npm run bench:papers100m-accuracy`: GraphSAGE of PyG's SAGEConv (mean aggregation, root weight,
# ReLU between layers, no dropout) trained on the graph, features, labels and split the Node side wrote, for the same
# epochs, batch, fan-outs, hidden width and Adam learning rate, on the same kind of samples as graphsage.py's
# (uniform with replacement, a vertex without neighbours samples itself, relabelled by torch.unique); after each
# epoch every test vertex is classified from a sample of its neighbourhood. The float16 features are copied to the
# GPU from the mapped .npy a slice at a time. Prints RESULT {json}; each epoch's line goes to stderr.
# Usage: graphsage_accuracy.py <folder> <epochs> <batch> <fanouts> <hidden> <classes> <lr>
import json
import os
import sys
import time

import numpy as np
import torch

from graphsage import native_csr

torch.set_float32_matmul_precision(os.environ.get("BENCH_MATMUL_PRECISION", "highest"))

EVAL_BATCH = 4096


def main():
    folder = sys.argv[1]
    epochs, batch = int(sys.argv[2]), int(sys.argv[3])
    fanouts = [int(f) for f in sys.argv[4].split(",")]
    hidden, classes, lr = int(sys.argv[5]), int(sys.argv[6]), float(sys.argv[7])
    dev = torch.device("cuda")
    t0 = time.perf_counter()
    rowptr, col, n = native_csr(os.path.join(folder, "graph.wmcsr"), dev)
    x = np.load(os.path.join(folder, "features.npy"), mmap_mode="r")
    if x.shape[0] != n or x.dtype != np.float16:
        raise ValueError(f"features.npy: {x.shape} {x.dtype}, expected ({n}, width) float16")
    feat = torch.empty(x.shape, dtype=torch.float16, device=dev)
    rows = 1 << 22
    for at in range(0, n, rows):
        feat[at:at + rows].copy_(torch.from_numpy(np.ascontiguousarray(x[at:at + rows])))
    labels = torch.from_numpy(np.load(os.path.join(folder, "labels.npy"))).to(dev).long()
    train = torch.from_numpy(np.load(os.path.join(folder, "train.npy"))).to(dev).long()
    test = torch.from_numpy(np.load(os.path.join(folder, "test.npy"))).to(dev).long()
    load_seconds = time.perf_counter() - t0

    from torch_geometric.nn import SAGEConv

    torch.manual_seed(3)
    dims = [x.shape[1]] + [hidden] * (len(fanouts) - 1) + [classes]
    layers = torch.nn.ModuleList(
        [SAGEConv(dims[i], dims[i + 1], aggr="mean", root_weight=True, bias=True) for i in range(len(fanouts))]).to(dev)
    opt = torch.optim.Adam(layers.parameters(), lr=lr)
    gen = torch.Generator(device=dev)
    gen.manual_seed(5)

    def sample(nodes, k):
        start = rowptr[nodes]
        deg = rowptr[nodes + 1] - start
        r = torch.rand(nodes.numel(), k, device=dev, generator=gen)
        pick = torch.minimum((r * deg[:, None]).long(), (deg - 1).clamp(min=0)[:, None])
        nb = col[(start[:, None] + pick).clamp(max=col.numel() - 1)].long()
        return torch.where(deg[:, None] > 0, nb, nodes[:, None])

    def forward(seeds):
        nodes, blocks = seeds, []
        for k in fanouts:
            nb = sample(nodes, k)
            uniq, inv = torch.unique(torch.cat([nodes, nb.flatten()]), return_inverse=True)
            blocks.insert(0, (inv[: nodes.numel()], inv[nodes.numel():].view(nodes.numel(), k)))
            nodes = uniq
        h = feat[nodes].float()
        for i, (self_idx, nb_idx) in enumerate(blocks):
            k = nb_idx.shape[1]
            dst = torch.arange(self_idx.numel(), device=dev).repeat_interleave(k)
            edge_index = torch.stack([nb_idx.flatten(), dst])
            h = layers[i]((h, h[self_idx]), edge_index, size=(h.shape[0], self_idx.numel()))
            if i < len(blocks) - 1:
                h = torch.relu(h)
        return h

    def accuracy():
        correct = 0
        with torch.no_grad():
            for at in range(0, test.numel(), EVAL_BATCH):
                seeds = test[at:at + EVAL_BATCH]
                correct += int((forward(seeds).argmax(1) == labels[seeds]).sum().item())
        return correct / test.numel()

    results = []
    for e in range(1, epochs + 1):
        torch.cuda.synchronize()
        started = time.perf_counter()
        order = train[torch.randperm(train.numel(), device=dev, generator=gen)]
        for at in range(0, order.numel(), batch):
            seeds = order[at:at + batch]
            loss = torch.nn.functional.cross_entropy(forward(seeds), labels[seeds])
            opt.zero_grad()
            loss.backward()
            opt.step()
        torch.cuda.synchronize()
        seconds = time.perf_counter() - started
        acc = accuracy()
        results.append({"epoch": e, "seconds": seconds, "testAccuracy": acc, "loss": float(loss.item())})
        print(f"PyG epoch {e}: {seconds:.1f} s, test accuracy {acc:.4f}", file=sys.stderr, flush=True)
    print("RESULT " + json.dumps({"epochs": results, "loadSeconds": load_seconds, "torch": torch.__version__,
                                  "pyg": __import__("torch_geometric").__version__}))


if __name__ == "__main__":
    main()
