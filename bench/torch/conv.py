# PyTorch eager side of `npm run bench:conv`: the same cases on the same GPU
# (NCHW, PyTorch's default layout; cuDNN with TF32 off, as our float32),
# printed as one JSON line of median ms per case.
import json
import sys

import torch
import torch.nn.functional as F

from timing import synced_median_ms


def timed(fn, reps=50, warm=3):
    return synced_median_ms(fn, reps, warm)


def main():
    torch.backends.cudnn.allow_tf32 = False
    torch.backends.cuda.matmul.allow_tf32 = False
    b = int(sys.argv[1]) if len(sys.argv) > 1 else 16
    dev = "cuda"
    x = torch.randn(b, 16, 32, 32, device=dev, requires_grad=True)
    w = (torch.randn(32, 16, 3, 3, device=dev) * 0.1).requires_grad_()
    h = torch.randn(b, 32, 32, 32, device=dev, requires_grad=True)
    dw = (torch.randn(32, 1, 3, 3, device=dev) * 0.1).requires_grad_()
    w1 = (torch.randn(32, 16, 3, 3, device=dev) * 0.1).requires_grad_()
    w2 = (torch.randn(32, 32, 3, 3, device=dev) * 0.1).requires_grad_()
    wd = (torch.randn(8 * 8 * 32, 10, device=dev) * 0.05).requires_grad_()
    labels = torch.randint(0, 10, (b,), device=dev)
    opt = torch.optim.SGD([w1, w2, wd], lr=0.01)

    def grads(f, inputs):
        return torch.autograd.grad(f().sum(), inputs)

    def step():
        opt.zero_grad()
        a = F.max_pool2d(F.relu(F.conv2d(x.detach(), w1, padding=1)), 2)
        c = F.avg_pool2d(F.relu(F.conv2d(a, w2, padding=1)), 2)
        F.cross_entropy(c.flatten(1) @ wd, labels).backward()
        opt.step()

    cases = [
        lambda: F.conv2d(x, w, padding=1).detach(),
        lambda: grads(lambda: F.conv2d(x, w, padding=1), [x, w]),
        lambda: F.conv2d(h, dw, padding=1, groups=32).detach(),
        lambda: grads(lambda: F.conv2d(h, dw, padding=1, groups=32), [h, dw]),
        lambda: F.max_pool2d(h, 2).detach(),
        lambda: grads(lambda: F.max_pool2d(h, 2), [h]),
        lambda: grads(lambda: F.avg_pool2d(h, 3, 1, 1, count_include_pad=False), [h]),
        step,
    ]
    print(json.dumps({"torch": torch.__version__, "device": torch.cuda.get_device_name(0), "ms": [timed(c) for c in cases]}))


main()
