# PyTorch side of `npm run bench:gcn`: the same normalised adjacency (CSR
# arrays and weights written by bench/gcn.ts) as a sparse CSR tensor on the
# same GPU, multiplied by torch.sparse.mm (cuSPARSE); autograd for the
# gradients. One JSON line of median ms per case.
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
    print(json.dumps({"torch": torch.__version__, "device": torch.cuda.get_device_name(), "ms": ms}))


if __name__ == "__main__":
    main()
