# PyTorch side of bench/probes/sage_vs_pyg.ts: PyG's SAGEConv stack (mean aggregation, root weight, ReLU between
# layers) started from ours' initial weights, the same steps on the same batches (ours' inputs and layers, read from
# the folder), torch's Adam with tfjs' epsilon (1e-7), float32 throughout on the GPU. Prints RESULT {json}: the first
# batch's loss, the first step's gradients' and the final weights' ||ours - PyG|| / ||PyG|| per variable (root kernel,
# neighbours' kernel, bias a layer, input layer first), each step's loss, and the vertices of each hop (seeds first)
# that ours' first batch holds beside those graphsage.py's sampler draws for the same seeds.
# Usage: sage_vs_pyg.py <folder> <steps> <hidden> <classes> <lr> <fanouts>
import json
import os
import sys

import numpy as np
import torch
from graphsage import load_ours_weights, native_csr, pyg_layer, sampled_blocks, sampler

torch.set_float32_matmul_precision("highest")


def main():
    folder = sys.argv[1]
    steps, hidden, classes, lr = int(sys.argv[2]), int(sys.argv[3]), int(sys.argv[4]), float(sys.argv[5])
    fanouts = [int(f) for f in sys.argv[6].split(",")]
    layers_n = len(fanouts)
    dev = torch.device("cuda")
    load = lambda name: np.load(os.path.join(folder, name))
    feat = torch.from_numpy(load("features.npy")).to(dev)
    from torch_geometric.nn import SAGEConv

    dims = [feat.shape[1]] + [hidden] * (layers_n - 1) + [classes]
    convs = torch.nn.ModuleList(
        [SAGEConv(dims[i], dims[i + 1], aggr="mean", root_weight=True, bias=True) for i in range(layers_n)]).to(dev)
    load_ours_weights(convs, load)

    def params():
        return [p for conv in convs for p in (conv.lin_r.weight, conv.lin_l.weight, conv.lin_l.bias)]

    def as_ours(t):  # a PyG parameter in ours' layout ([in, out] kernels)
        return t.detach().t().contiguous() if t.dim() == 2 else t.detach()

    def forward(s):
        inputs = torch.from_numpy(load(f"b{s}_inputs.npy")).to(dev).long()
        h = feat[inputs]
        for l, conv in enumerate(convs):
            nb = torch.from_numpy(load(f"b{s}_l{l}.npy")).to(dev).long()
            # ours' outputs are the first rows of a layer's inputs
            h = pyg_layer(conv, h, torch.arange(nb.shape[0], device=dev), nb)
            if l < layers_n - 1:
                h = torch.relu(h)
        return h

    def rel(a, b):
        return float(torch.linalg.vector_norm(a - b) / torch.linalg.vector_norm(b).clamp_min(1e-30))

    opt = torch.optim.Adam(params(), lr=lr, eps=1e-7)
    losses, grad_diff = [], []
    for s in range(steps):
        y = torch.from_numpy(load(f"b{s}_y.npy")).to(dev).long()
        loss = torch.nn.functional.cross_entropy(forward(s), y)
        opt.zero_grad()
        loss.backward()
        if s == 0:
            grad_diff = [rel(torch.from_numpy(load(f"grad0_{i}.npy")).to(dev), as_ours(p.grad)) for i, p in enumerate(params())]
        opt.step()
        losses.append(float(loss.item()))
    # Each hop's vertices, seeds first: ours' first batch (each layer's outputs, then the inputs) and PyG's sampler.
    ours_hops = [load(f"b0_l{l}.npy").shape[0] for l in reversed(range(layers_n))] + [load("b0_inputs.npy").shape[0]]
    rowptr, col, _ = native_csr(os.path.join(folder, "graph.wmcsr"), dev)
    gen = torch.Generator(device=dev)
    gen.manual_seed(5)
    seeds = torch.from_numpy(load("b0_inputs.npy")[: ours_hops[0]]).to(dev).long()
    nodes, blocks = sampled_blocks(seeds, fanouts, sampler(rowptr, col, gen))
    pyg_hops = [seeds.numel()] + [b[0].numel() for b in reversed(blocks[:-1])] + [nodes.numel()]
    weight_diff = [rel(torch.from_numpy(load(f"final_{i}.npy")).to(dev), as_ours(p)) for i, p in enumerate(params())]
    print("RESULT " + json.dumps({"firstLoss": losses[0], "gradRelDiff": grad_diff, "losses": losses, "weightRelDiff": weight_diff,
                                  "oursHops": ours_hops, "pygHops": pyg_hops}))


if __name__ == "__main__":
    main()
