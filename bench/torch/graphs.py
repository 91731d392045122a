# The PyG side of bench:graphs: the same graphs (each bond both ways), PyG's DataLoader (shuffled, collated on
# the host each batch) and 3 GINConv layers (a two-layer MLP each), ReLU and BatchNorm1d after each, every depth
# global_add_pool-ed and joined, a two-layer MLP, Adam 0.01, cross-entropy. Prints graphs per second for the epoch
# after a warm-up one (batches moved to the GPU in the loop) and for inference over every graph.
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


def main():
    d, batch_size = sys.argv[1], int(sys.argv[2])
    counts = np.fromfile(os.path.join(d, "counts.i32"), dtype=np.int32).reshape(-1, 2)
    bonds = np.fromfile(os.path.join(d, "bonds.i32"), dtype=np.int32).reshape(-1, 2)
    x = np.fromfile(os.path.join(d, "x.f32"), dtype=np.float32).reshape(-1, 9)
    edge = np.fromfile(os.path.join(d, "edge.f32"), dtype=np.float32).reshape(-1, 3)
    y = np.fromfile(os.path.join(d, "y.i32"), dtype=np.int32)
    data, v0, e0 = [], 0, 0
    for g, (n, m) in enumerate(counts):
        b = torch.from_numpy(bonds[e0 : e0 + m].astype(np.int64)).t()
        ea = torch.from_numpy(edge[e0 : e0 + m])
        data.append(
            Data(
                x=torch.from_numpy(x[v0 : v0 + n]),
                edge_index=torch.cat([b, b.flip(0)], 1),
                edge_attr=torch.cat([ea, ea]),
                y=torch.tensor([int(y[g])]),
            )
        )
        v0, e0 = v0 + n, e0 + m
    dev = "cuda"
    torch.manual_seed(1)
    model = Gin(9, 64, 2, 3).to(dev)
    opt = torch.optim.Adam(model.parameters(), lr=0.01)
    loader = DataLoader(data, batch_size=batch_size, shuffle=True)

    def epoch():
        model.train()
        total = torch.zeros((), device=dev)
        for b in loader:
            b = b.to(dev)
            loss = F.cross_entropy(model(b.x, b.edge_index, b.batch), b.y)
            opt.zero_grad()
            loss.backward()
            opt.step()
            total += loss.detach()
        return total.item() / len(loader)

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
