# PyTorch side of `npm run bench:gcn`: the same normalised adjacency (CSR
# arrays and weights written by bench/gcn.ts) as a sparse CSR tensor on the
# same GPU, multiplied by torch.sparse.mm (cuSPARSE); autograd for the
# gradients; and the same layer from PyG (torch-geometric's GCNConv with the
# adjacency's weights as edge weights, normalize=False: its message passing
# over edge_index) where PyG is installed. One JSON line of median ms per case.
import json
import os
import sys

import numpy as np
import torch

from timing import synced_median_ms


def main():
    d, dim = sys.argv[1], int(sys.argv[2])
    dev = "cuda"
    load = lambda name, t: torch.from_numpy(np.fromfile(os.path.join(d, name), dtype=t)).to(dev)
    row_ptr, col, weight = load("row_ptr.i32", np.int32), load("col_idx.i32", np.int32), load("weight.f32", np.float32)
    n = row_ptr.numel() - 1
    a = torch.sparse_csr_tensor(row_ptr, col, weight, size=(n, n))
    torch.manual_seed(0)
    x = torch.randn(n, dim, device=dev, requires_grad=True)
    w = (0.1 * torch.randn(dim, dim, device=dev)).requires_grad_()
    b = torch.zeros(dim, device=dev, requires_grad=True)
    up = torch.randn(n, dim, device=dev)

    def layer():
        return torch.relu(torch.sparse.mm(a, x @ w) + b)

    def aggregate():
        with torch.no_grad():
            torch.sparse.mm(a, x)

    def forward():
        with torch.no_grad():
            layer()

    def both():
        torch.autograd.grad((layer() * up).sum(), [x, w, b])

    ms = [synced_median_ms(f, 30, 2) for f in (aggregate, forward, both)]
    out = {"torch": torch.__version__, "device": torch.cuda.get_device_name(), "ms": ms}
    try:
        import torch_geometric
        from torch_geometric.nn import GCNConv
        from torch_geometric.utils import scatter
    except ImportError as e:
        out["pyg_error"] = str(e)
    else:
        row = torch.repeat_interleave(torch.arange(n, device=dev), (row_ptr[1:] - row_ptr[:-1]).long())
        edge_index = torch.stack([col.long(), row])  # messages flow from col (source) to row (target)
        conv = GCNConv(dim, dim, normalize=False, bias=True).to(dev)

        def pyg_aggregate():
            with torch.no_grad():
                scatter(x[col.long()] * weight[:, None], row, 0, dim_size=n, reduce="sum")

        def pyg_layer():
            return torch.relu(conv(x, edge_index, weight))

        def pyg_forward():
            with torch.no_grad():
                pyg_layer()

        def pyg_both():
            torch.autograd.grad((pyg_layer() * up).sum(), [x] + list(conv.parameters()))

        out["pyg"] = torch_geometric.__version__
        out["pyg_ms"] = [synced_median_ms(f, 30, 2) for f in (pyg_aggregate, pyg_forward, pyg_both)]
    print(json.dumps(out))


if __name__ == "__main__":
    main()
