# The PyG side of bench:graphs: the same graphs (each bond both ways), PyG's DataLoader (shuffled, collated on
# the host each batch) and 3 GINConv layers (a two-layer MLP each), ReLU and BatchNorm1d after each, every depth
# global_add_pool-ed and joined, a two-layer MLP, Adam 0.01, cross-entropy. Prints graphs per second for the epoch
# after a warm-up one (batches moved to the GPU in the loop) and for inference over every graph; with `accuracy`,
# the test accuracy of k-fold cross-validation on the folds given (folds.i32), as trainGraphClassification runs it.
import json
import os
import sys
import time

import numpy as np
import torch
import torch.nn.functional as F
from torch_geometric.data import Data
from torch_geometric.loader import DataLoader
from torch_geometric.nn import GINConv, global_add_pool


class Gin(torch.nn.Module):
    def __init__(self, inp, hidden, classes, layers):
        super().__init__()
        self.convs = torch.nn.ModuleList()
        self.norms = torch.nn.ModuleList()
        for l in range(layers):
            mlp = torch.nn.Sequential(
                torch.nn.Linear(inp if l == 0 else hidden, hidden), torch.nn.ReLU(), torch.nn.Linear(hidden, hidden)
            )
            self.convs.append(GINConv(mlp, train_eps=True))
            self.norms.append(torch.nn.BatchNorm1d(hidden))
        self.lin1 = torch.nn.Linear(inp + layers * hidden, hidden)
        self.lin2 = torch.nn.Linear(hidden, classes)

    def forward(self, x, edge_index, batch):
        pooled = [global_add_pool(x, batch)]
        for conv, norm in zip(self.convs, self.norms):
            x = norm(F.relu(conv(x, edge_index)))
            pooled.append(global_add_pool(x, batch))
        return self.lin2(F.relu(self.lin1(torch.cat(pooled, 1))))


def read(d, dim, edge_dim):
    counts = np.fromfile(os.path.join(d, "counts.i32"), dtype=np.int32).reshape(-1, 2)
    bonds = np.fromfile(os.path.join(d, "bonds.i32"), dtype=np.int32).reshape(-1, 2)
    x = np.fromfile(os.path.join(d, "x.f32"), dtype=np.float32).reshape(-1, dim)
    edge = np.fromfile(os.path.join(d, "edge.f32"), dtype=np.float32).reshape(-1, edge_dim) if edge_dim else None
    y = np.fromfile(os.path.join(d, "y.i32"), dtype=np.int32)
    data, v0, e0 = [], 0, 0
    for g, (n, m) in enumerate(counts):
        b = torch.from_numpy(bonds[e0 : e0 + m].astype(np.int64)).t()
        extra = {}
        if edge is not None:
            ea = torch.from_numpy(edge[e0 : e0 + m])
            extra["edge_attr"] = torch.cat([ea, ea])
        data.append(
            Data(x=torch.from_numpy(x[v0 : v0 + n]), edge_index=torch.cat([b, b.flip(0)], 1), y=torch.tensor([int(y[g])]), **extra)
        )
        v0, e0 = v0 + n, e0 + m
    return data


def train_epoch(model, opt, loader, dev):
    # One pass over the loader's shuffled batches; the summed loss, on the GPU (no wait per batch).
    model.train()
    total = torch.zeros((), device=dev)
    for b in loader:
        b = b.to(dev)
        loss = F.cross_entropy(model(b.x, b.edge_index, b.batch), b.y)
        opt.zero_grad()
        loss.backward()
        opt.step()
        total += loss.detach()
    return total


def accuracy(d, dim, classes, folds, epochs):
    # trainGraphClassification's protocol: fold k tests, fold k + 1 picks the epoch (ties to the later one), the
    # rest trains in shuffled batches of 32; the test accuracy at the best validation epoch, over the folds.
    data = read(d, dim, 0)
    fold = np.fromfile(os.path.join(d, "folds.i32"), dtype=np.int32)
    dev = "cuda"
    t0 = time.perf_counter()

    def acc(model, graphs):
        model.eval()
        right = 0
        with torch.no_grad():
            for b in DataLoader(graphs, batch_size=256, shuffle=False):
                b = b.to(dev)
                right += int((model(b.x, b.edge_index, b.batch).argmax(1) == b.y).sum())
        return right / len(graphs)

    tests = []
    for k in range(folds):
        v = (k + 1) % folds
        test = [g for i, g in enumerate(data) if fold[i] == k]
        val = [g for i, g in enumerate(data) if fold[i] == v]
        train = [g for i, g in enumerate(data) if fold[i] != k and fold[i] != v]
        torch.manual_seed(k)
        model = Gin(dim, 64, classes, 3).to(dev)
        opt = torch.optim.Adam(model.parameters(), lr=0.01)
        loader = DataLoader(train, batch_size=32, shuffle=True)
        best_val, best_test = -1.0, 0.0
        for _ in range(epochs):
            train_epoch(model, opt, loader, dev)
            va, te = acc(model, val), acc(model, test)
            if va >= best_val:
                best_val, best_test = va, te
        tests.append(best_test)
    print(json.dumps({"testAcc": [float(np.mean(tests)), float(np.std(tests))], "seconds": time.perf_counter() - t0}))


def main():
    if sys.argv[2] == "accuracy":
        d, dim, classes, folds, epochs = sys.argv[1], *map(int, sys.argv[3:7])
        return accuracy(d, dim, classes, folds, epochs)
    d, batch_size = sys.argv[1], int(sys.argv[2])
    data = read(d, 9, 3)
    dev = "cuda"
    torch.manual_seed(1)
    model = Gin(9, 64, 2, 3).to(dev)
    opt = torch.optim.Adam(model.parameters(), lr=0.01)
    loader = DataLoader(data, batch_size=batch_size, shuffle=True)

    def epoch():
        return train_epoch(model, opt, loader, dev).item() / len(loader)

    epoch()
    torch.cuda.synchronize()
    t0 = time.perf_counter()
    loss = epoch()
    train = len(data) / (time.perf_counter() - t0)
    model.eval()
    t0 = time.perf_counter()
    with torch.no_grad():
        last = None
        for b in DataLoader(data, batch_size=batch_size, shuffle=False):
            b = b.to(dev)
            last = model(b.x, b.edge_index, b.batch).argmax(1)
        last.cpu()
    infer = len(data) / (time.perf_counter() - t0)
    print(json.dumps({"trainGraphsPerSecond": train, "inferGraphsPerSecond": infer, "loss": loss}))


main()
