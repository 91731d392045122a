# PyTorch side of `npm run bench:elementwise`: the same passes on the same GPU,
# eager, one JSON line of median ms per case (names as in bench/elementwise.ts).
import json
import sys

import torch

from timing import synced_median_ms


def main():
    rows, width = int(sys.argv[1]), int(sys.argv[2])
    torch.manual_seed(0)
    x, y = torch.randn(rows, width, device="cuda"), torch.randn(rows, width, device="cuda")
    bias, column = torch.randn(width, device="cuda"), torch.randn(rows, 1, device="cuda")
    w = 0.1 * torch.randn(width, width, device="cuda")
    ids = torch.randint(0, rows, (rows,), device="cuda")
    cases = {
        "x + y": lambda: x + y,
        "x + bias row": lambda: x + bias,
        "x * column": lambda: x * column,
        "x * 0.5 (host scalar)": lambda: x * 0.5,
        "relu(x)": lambda: torch.relu(x),
        "exp(x)": lambda: torch.exp(x),
        "relu(x W + b) fused": lambda: torch.relu(torch.addmm(bias, x, w)),
        "x[ids] (gather rows)": lambda: x[ids],
        "rows added back by ids": lambda: torch.zeros(rows, width, device="cuda").index_add_(0, ids, x),
    }
    ms = {name: synced_median_ms(f, 30, 3) for name, f in cases.items()}
    print(json.dumps({"torch": torch.__version__, "device": torch.cuda.get_device_name(), "ms": ms}))


if __name__ == "__main__":
    main()
