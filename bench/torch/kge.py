# The PyG side of bench:kge: torch_geometric.nn.kge's model trained as PyG's own example trains it
# (model.loader, model.loss: one random negative per positive, Adam), on the triples bench/kge.ts
# wrote (train.txt, valid.txt, test.txt of entity and relation ids), then ranked with the same
# protocol as ours: both sides, filtered by every split, the truth counted against every entity
# scoring at least as high, on the sample of test triples bench/kge.ts wrote to eval.txt.
# On the GPU, or with a tenth argument 'cpu' on the CPU (as ours runs where there is no GPU).
# Prints one JSON line: seconds of training, triples per second, mrr, hits10.
import json
import sys
import time

import torch
from torch_geometric.nn.kge import ComplEx, DistMult, RotatE, TransE


def read(path):
    rows = [list(map(int, line.split('\t'))) for line in open(path) if line.strip()]
    return torch.tensor(rows, dtype=torch.long).reshape(-1, 3)


def main():
    folder, name, dim, epochs, batch, lr, eval_triples, entities, relations = sys.argv[1:10]
    dim, epochs, batch, eval_triples, entities, relations = map(int, (dim, epochs, batch, eval_triples, entities, relations))
    lr = float(lr)
    dev = torch.device(sys.argv[10] if len(sys.argv) > 10 else 'cuda')

    def sync():
        if dev.type == 'cuda':
            torch.cuda.synchronize()

    torch.manual_seed(0)
    train, valid, test, sample = (read(f'{folder}/{s}.txt').to(dev) for s in ('train', 'valid', 'test', 'eval'))
    make = {'transE': TransE, 'distMult': DistMult, 'complEx': ComplEx, 'rotatE': RotatE}[name]
    model = make(entities, relations, dim).to(dev)
    opt = torch.optim.Adam(model.parameters(), lr=lr)
    loader = model.loader(head_index=train[:, 0], rel_type=train[:, 1], tail_index=train[:, 2], batch_size=batch, shuffle=True)
    sync()
    t0 = time.perf_counter()
    seen = 0
    for _ in range(epochs):
        model.train()
        for h, r, t in loader:
            opt.zero_grad()
            loss = model.loss(h, r, t)
            loss.backward()
            opt.step()
            seen += h.numel()
    sync()
    seconds = time.perf_counter() - t0

    # Filtered ranking, both sides, as bench/kge.ts ranks ours.
    known_t, known_h = {}, {}
    for h, r, t in torch.cat([train, valid, test]).tolist():
        known_t.setdefault((h, r), []).append(t)
        known_h.setdefault((t, r), []).append(h)
    model.eval()
    ranks = []
    every = torch.arange(entities, device=dev)
    with torch.no_grad():
        for side in ('tail', 'head'):
            for h, r, t in sample.tolist():
                hs = torch.full_like(every, h) if side == 'tail' else every
                ts = every if side == 'tail' else torch.full_like(every, t)
                s = model(hs, torch.full_like(every, r), ts)
                own = t if side == 'tail' else h
                truth = s[own].item()
                keep = torch.ones(entities, dtype=torch.bool, device=dev)
                keep[own] = False
                for e in (known_t.get((h, r), []) if side == 'tail' else known_h.get((t, r), [])):
                    keep[e] = False
                ranks.append(1 + int(((s >= truth) & keep).sum().item()))
    ranks = torch.tensor(ranks, dtype=torch.float64)
    print(json.dumps({
        'seconds': seconds,
        'triplesPerSecond': seen / seconds,
        'mrr': (1 / ranks).mean().item(),
        'hits10': (ranks <= 10).double().mean().item(),
    }))


if __name__ == '__main__':
    main()
