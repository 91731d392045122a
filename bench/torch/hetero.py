# The PyG side of bench:hetero: PyG's RGCNConv (num_bases=8, mean aggregation, root weight, bias) on the
# batches bench/hetero.ts sampled and trained, each layer in its homogeneous form (every type's inputs in
# one matrix, the relations' edges with their relation ids), types without features as zeros, two
# layers with relu between, cross-entropy on the seeds, Adam; and R-GAT as PyG writes it, HeteroConv of
# GATConv((-1, -1), heads, add_self_loops=False) per relation summed (4 heads of 16, then one head of the
# classes), on each layer's edges per relation. Prints steps per second of each over the batches after two
# warm-up ones (the batches are read to the GPU before the clock starts); and the validation accuracy of fresh
# R-GCNs (one per seed) trained the given passes over the same batches, judged on the validation batches ours judged.
# On the GPU, or on the CPU where meta.json's device says so (as ours ran where there was no GPU).
import json
import os
import sys
import time

import numpy as np
import torch
import torch.nn.functional as F

# The matmul precision the bench's own side runs with (bench_util.ts' setBenchMatmulPrecision).
torch.set_float32_matmul_precision(os.environ.get("BENCH_MATMUL_PRECISION", "highest"))
from torch_geometric.nn import GATConv, HeteroConv, RGCNConv


def main():
    d = sys.argv[1]
    meta = json.load(open(os.path.join(d, "meta.json")))
    types, relations, hidden, classes = meta["types"], meta["relations"], meta["hidden"], meta["classes"]
    dev = meta.get("device", "cuda")

    def sync():
        if dev == "cuda":
            torch.cuda.synchronize()

    paper = types.index("paper")
    def load(b):
        layers = []
        for l in b["layers"]:
            a = torch.from_numpy(np.fromfile(os.path.join(d, l["file"]), dtype=np.int32).astype(np.int64)).to(dev)
            m = l["edges"]
            layers.append((a[:m], a[m : 2 * m], a[2 * m :], l["counts"], l["outCounts"]))
        x = torch.from_numpy(np.fromfile(os.path.join(d, f"{b['name']}x.f32"), dtype=np.float32)).to(dev).view(-1, 128)
        y = torch.from_numpy(np.fromfile(os.path.join(d, f"{b['name']}y.i32"), dtype=np.int32).astype(np.int64)).to(dev)
        return (layers, x, y)

    batches = [load(b) for b in meta["batches"]]
    val_batches = [load(b) for b in meta.get("val", [])]

    def rgcn():
        return torch.nn.ModuleList(
            [RGCNConv(128, hidden, len(relations), num_bases=8), RGCNConv(hidden, classes, len(relations), num_bases=8)]
        ).to(dev)

    convs = rgcn()
    opt = torch.optim.Adam(convs.parameters(), lr=0.01)

    def logits(convs, layers, x_paper, y):
        # Layer 0's inputs: papers' features, zeros elsewhere, in the layer's type order.
        counts = layers[0][3]
        x = torch.cat([x_paper if i == paper else torch.zeros(c, 128, device=dev) for i, c in enumerate(counts)])
        for li, (src, dst, et, counts, out_counts) in enumerate(layers):
            h = convs[li](x, torch.stack([src, dst]), et)
            if li == 0:
                h = F.relu(h)
            # The next layer's inputs: each type's outputs (the first rows of its inputs).
            starts = np.cumsum([0] + counts[:-1])
            x = torch.cat([h[s : s + n] for s, n in zip(starts, out_counts)])
        return x[: y.numel()] if paper == 0 else x[sum(out_counts[:paper]) :][: y.numel()]

    def step(layers, x_paper, y):
        loss = F.cross_entropy(logits(convs, layers, x_paper, y), y)
        opt.zero_grad()
        loss.backward()
        opt.step()

    def timed(step):
        for layers, x, y in batches[:2]:
            step(layers, x, y)
        sync()
        t0 = time.perf_counter()
        for layers, x, y in batches[2:]:
            step(layers, x, y)
        sync()
        return (len(batches) - 2) / (time.perf_counter() - t0)

    rgcn_steps = timed(step)

    # Accuracy: meta["seeds"] fresh R-GCNs (torch.manual_seed(run) each), each trained meta["passes"] passes over
    # the same batches and judged on the validation batches: the mean, the spread and each run.
    accuracy = accuracy_sd = None
    runs = []
    if val_batches and meta.get("passes", 0) > 0:
        for run in range(meta.get("seeds", 1)):
            torch.manual_seed(run)
            fresh = rgcn()
            fresh_opt = torch.optim.Adam(fresh.parameters(), lr=0.01)
            for _ in range(meta["passes"]):
                for layers, x, y in batches:
                    loss = F.cross_entropy(logits(fresh, layers, x, y), y)
                    fresh_opt.zero_grad()
                    loss.backward()
                    fresh_opt.step()
            right = seen = 0
            with torch.no_grad():
                for layers, x, y in val_batches:
                    right += int((logits(fresh, layers, x, y).argmax(1) == y).sum())
                    seen += y.numel()
            runs.append(right / seen)
        accuracy = float(np.mean(runs))
        accuracy_sd = float(np.std(runs))

    # R-GAT: the same layers split per relation (each type's rows local to it).
    keys = [tuple(r.split("___")) for r in relations]

    def gat_layer(heads, out):
        return HeteroConv({k: GATConv((-1, -1), out, heads=heads, add_self_loops=False) for k in keys}, aggr="sum")

    gats = torch.nn.ModuleList([gat_layer(4, hidden // 4), gat_layer(1, classes)]).to(dev)

    def split_layers(layers):
        out = []
        for src, dst, et, counts, out_counts in layers:
            starts = {t: int(o) for t, o in zip(types, np.cumsum([0] + counts[:-1]))}
            edges = {}
            for r, k in enumerate(keys):
                m = et == r
                edges[k] = torch.stack([src[m] - starts[k[0]], dst[m] - starts[k[2]]])
            out.append((edges, counts, out_counts))
        return out

    gat_batches = [(split_layers(layers), x, y) for layers, x, y in batches]

    def gat_forward(layers, x_paper):
        counts = layers[0][1]
        x = {t: x_paper if t == "paper" else torch.zeros(c, 128, device=dev) for t, c in zip(types, counts)}
        for li, (edges, counts, out_counts) in enumerate(layers):
            h = gats[li](x, edges)
            if li == 0:
                h = {t: F.relu(v) for t, v in h.items()}
            # The next layer's inputs: each type's outputs (the first rows of its inputs).
            x = {t: h[t][:n] if t in h else torch.zeros(n, h["paper"].shape[1], device=dev) for t, n in zip(types, out_counts)}
        return x["paper"]

    gat_forward(gat_batches[0][0], gat_batches[0][1])  # the lazy (-1) widths made before the optimizer
    gat_opt = torch.optim.Adam(gats.parameters(), lr=0.01)

    def gat_step(layers, x_paper, y):
        loss = F.cross_entropy(gat_forward(layers, x_paper)[: y.numel()], y)
        gat_opt.zero_grad()
        loss.backward()
        gat_opt.step()

    batches = gat_batches
    rgat = timed(gat_step)
    import torch_geometric

    out = {"stepsPerSecond": rgcn_steps, "rgatStepsPerSecond": rgat, "torch": torch.__version__, "pyg": torch_geometric.__version__}
    if accuracy is not None:
        out["accuracy"] = accuracy
        out["accuracySd"] = accuracy_sd
        out["accuracyRuns"] = runs
    print(json.dumps(out))


if __name__ == "__main__":
    main()
