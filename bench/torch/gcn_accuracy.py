# PyG side of `npm run bench:gcn-accuracy`: the GCN paper's recipe with
# torch-geometric's GCNConv (2 layers, hidden 64, dropout 0.5 before each,
# weight decay 5e-4 on every weight, Adam 0.01, 200 full-batch epochs, the
# test accuracy at the best validation epoch) on the graph, features (already
# row-normalised) and split bench/gcn_accuracy.ts wrote. One JSON line: the
# accuracy per seed and the seconds per run.
import json
import os
import sys
import time

import numpy as np
import torch
import torch.nn.functional as F


def main():
    d, dim, classes, seeds = sys.argv[1], int(sys.argv[2]), int(sys.argv[3]), int(sys.argv[4])
    from torch_geometric.nn import GCNConv
    import torch_geometric

    dev = "cuda" if torch.cuda.is_available() else "cpu"
    load = lambda name, t: torch.from_numpy(np.fromfile(os.path.join(d, name), dtype=t))
    x = load("features.f32", np.float32).view(-1, dim).to(dev)
    row_ptr, col = load("row_ptr.i32", np.int32).long(), load("col_idx.i32", np.int32).long()
    n = row_ptr.numel() - 1
    row = torch.repeat_interleave(torch.arange(n), row_ptr[1:] - row_ptr[:-1])
    edge_index = torch.stack([col, row]).to(dev)
    y = load("labels.i32", np.int32).long().to(dev)
    train, val, test = (load(f"{p}.i32", np.int32).long().to(dev) for p in ("train", "val", "test"))

    class Gcn(torch.nn.Module):
        def __init__(self):
            super().__init__()
            self.conv1 = GCNConv(dim, 64)
            self.conv2 = GCNConv(64, classes)

        def forward(self):
            h = F.dropout(x, 0.5, self.training)
            h = F.relu(self.conv1(h, edge_index))
            h = F.dropout(h, 0.5, self.training)
            return self.conv2(h, edge_index)

    accs = []
    started = time.time()
    for seed in range(seeds):
        torch.manual_seed(seed)
        model = Gcn().to(dev)
        opt = torch.optim.Adam(model.parameters(), lr=0.01, weight_decay=5e-4)
        best_val, best_test = -1.0, 0.0
        for _ in range(200):
            model.train()
            opt.zero_grad()
            F.cross_entropy(model()[train], y[train]).backward()
            opt.step()
            model.eval()
            with torch.no_grad():
                pred = model().argmax(1)
            val_acc = (pred[val] == y[val]).float().mean().item()
            if val_acc >= best_val:
                best_val, best_test = val_acc, (pred[test] == y[test]).float().mean().item()
        accs.append(best_test)
    seconds = (time.time() - started) / seeds
    print(json.dumps({"acc": accs, "seconds": seconds, "pyg": torch_geometric.__version__, "device": dev}))


if __name__ == "__main__":
    main()
