# PyTorch side of `npm run bench:papers100m-accuracy`: GraphSAGE of PyG's SAGEConv (mean aggregation, root weight,
# ReLU between layers, no dropout) trained on the graph, features, labels and split the Node side wrote, for the same
# epochs, batch, fan-outs, hidden width and Adam learning rate, on the same kind of samples as graphsage.py's
# (uniform with replacement, a vertex without neighbours samples itself, relabelled by torch.unique); after each
# epoch every test vertex is classified from a sample of its neighbourhood. The float16 features are copied to the
# GPU from the mapped .npy a slice at a time. Prints RESULT {json}; each epoch's line goes to stderr.
# The step size is Adam's lr throughout ('constant') or annealed to 0 over the run's steps ('cosine': CosineAnnealingLR
# stepped after each batch). The layers start from ours' initial weights where the folder holds them (init_*.npy), else
# from PyG's own draw after torch.manual_seed(seed). The samples and each epoch's order come from a generator seeded
# with <sample seed>.
# Usage: graphsage_accuracy.py <folder> <epochs> <batch> <eval batch> <fanouts> <hidden> <classes> <lr> <schedule> <adam epsilon> <seed> <sample seed>
import json
import os
import sys
import time

import numpy as np
import torch

from graphsage import load_ours_weights, native_csr, pyg_layer, sampled_blocks, sampler

torch.set_float32_matmul_precision(os.environ.get("BENCH_MATMUL_PRECISION", "highest"))


def main():
    folder = sys.argv[1]
    epochs, batch, eval_batch = int(sys.argv[2]), int(sys.argv[3]), int(sys.argv[4])
    fanouts = [int(f) for f in sys.argv[5].split(",")]
    hidden, classes, lr = int(sys.argv[6]), int(sys.argv[7]), float(sys.argv[8])
    schedule, eps, seed, sample_seed = sys.argv[9], float(sys.argv[10]), int(sys.argv[11]), int(sys.argv[12])
    if schedule not in ("cosine", "constant"):
        raise ValueError(f"schedule must be 'cosine' or 'constant', got '{schedule}'")
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

    torch.manual_seed(seed)
    dims = [x.shape[1]] + [hidden] * (len(fanouts) - 1) + [classes]
    layers = torch.nn.ModuleList(
        [SAGEConv(dims[i], dims[i + 1], aggr="mean", root_weight=True, bias=True) for i in range(len(fanouts))]).to(dev)
    ours_init = os.path.exists(os.path.join(folder, "init_0.npy"))
    if ours_init:
        load_ours_weights(layers, lambda name: np.load(os.path.join(folder, name)))
    opt = torch.optim.Adam(layers.parameters(), lr=lr, eps=eps)
    steps = epochs * ((train.numel() + batch - 1) // batch)
    annealing = torch.optim.lr_scheduler.CosineAnnealingLR(opt, T_max=steps) if schedule == "cosine" else None
    gen = torch.Generator(device=dev)
    gen.manual_seed(sample_seed)

    sample = sampler(rowptr, col, gen)

    def forward(seeds):
        nodes, blocks = sampled_blocks(seeds, fanouts, sample)
        h = feat[nodes].float()
        for i, (self_idx, nb_idx) in enumerate(blocks):
            h = pyg_layer(layers[i], h, self_idx, nb_idx)
            if i < len(blocks) - 1:
                h = torch.relu(h)
        return h

    def accuracy():
        correct = 0
        with torch.no_grad():
            for at in range(0, test.numel(), eval_batch):
                seeds = test[at:at + eval_batch]
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
            if annealing is not None:
                annealing.step()
        torch.cuda.synchronize()
        seconds = time.perf_counter() - started
        acc = accuracy()
        results.append({"epoch": e, "seconds": seconds, "testAccuracy": acc, "loss": float(loss.item())})
        print(f"PyG epoch {e}: {seconds:.1f} s, test accuracy {acc:.4f}", file=sys.stderr, flush=True)
    print("RESULT " + json.dumps({"epochs": results, "loadSeconds": load_seconds, "oursInitialWeights": ours_init, "torch": torch.__version__,
                                  "pyg": __import__("torch_geometric").__version__}))


if __name__ == "__main__":
    main()
