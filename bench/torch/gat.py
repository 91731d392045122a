# PyTorch eager side of `npm run bench:gat`: the same graph attention on the
# same graph (CSR arrays written by bench/gat.ts) and GPU: gathers, each
# row's maximum by scatter_reduce (held constant: the softmax does not depend
# on it), index_add_ for the sums, autograd for the gradients; and the same
# from PyG's own pieces where PyG is installed (torch_geometric.utils.softmax
# over each row's entries and scatter's sum: what GATConv's message passing
# runs). One JSON line of median ms per case.
import json
import os
import sys

import numpy as np
import torch
import torch.nn.functional as F

from timing import synced_median_ms


def timed(fn, reps=30, warm=2):
    return synced_median_ms(fn, reps, warm)


def main():
    d, heads, dim = sys.argv[1], int(sys.argv[2]), int(sys.argv[3])
    dev = "cuda"
    row_ptr = torch.from_numpy(np.fromfile(os.path.join(d, "row_ptr.i32"), dtype=np.int32).astype(np.int64)).to(dev)
    col = torch.from_numpy(np.fromfile(os.path.join(d, "col_idx.i32"), dtype=np.int32).astype(np.int64)).to(dev)
    rows = row_ptr.numel() - 1
    row = torch.repeat_interleave(torch.arange(rows, device=dev), row_ptr[1:] - row_ptr[:-1])
    feat = torch.randn(rows, heads, dim, device=dev, requires_grad=True)
    src = torch.randn(rows, heads, device=dev, requires_grad=True)
    dst = torch.randn(rows, heads, device=dev, requires_grad=True)
    up = torch.randn(rows, heads, dim, device=dev)
    rh = row[:, None].expand(-1, heads)

    def gat():
        z = F.leaky_relu(src[col] + dst[row], 0.2)
        m = torch.full((rows, heads), -float("inf"), device=dev).scatter_reduce(0, rh, z.detach(), "amax")
        ex = torch.exp(z - m[row])
        s = torch.zeros(rows, heads, device=dev).index_add(0, row, ex)
        alpha = ex / s[row]
        return torch.zeros(rows, heads, dim, device=dev).index_add(0, row, alpha[..., None] * feat[col])

    def forward():
        with torch.no_grad():
            gat()

    def both():
        torch.autograd.grad((gat() * up).sum(), [feat, src, dst])

    ms = [timed(forward), timed(both)]
    out = {"torch": torch.__version__, "device": torch.cuda.get_device_name(), "ms": ms}
    try:
        import torch_geometric
        from torch_geometric.utils import scatter, softmax
    except ImportError as e:
        out["pyg_error"] = str(e)
    else:

        def pyg():
            alpha = softmax(F.leaky_relu(src[col] + dst[row], 0.2), row, num_nodes=rows)
            return scatter(alpha[..., None] * feat[col], row, 0, dim_size=rows, reduce="sum")

        def pyg_forward():
            with torch.no_grad():
                pyg()

        def pyg_both():
            torch.autograd.grad((pyg() * up).sum(), [feat, src, dst])

        out["pyg"] = torch_geometric.__version__
        out["pyg_ms"] = [timed(pyg_forward), timed(pyg_both)]
    print(json.dumps(out))


if __name__ == "__main__":
    main()
