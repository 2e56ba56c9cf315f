"""Does a query-side adapter pay for EmbeddingGemma? q' = normalize(W q), trained on the question
bank's training part against the fixed passage vectors of the model's vector set, measured by
group-wise 5-fold CV over the bank's folds (dense search only, a passage's section counts).

W is either a full matrix initialised to the identity, pulled back to it by `--l2`, or a diagonal
(`--diagonal`). A query-side change needs no second model download: the app would multiply the
query vector by W. Needs `npx tsx tools/train/query-vectors.ts` first.

    python tools/train/query_adapter_cv.py [--l2 1] [--epochs 30] [--diagonal]
"""

from __future__ import annotations

import argparse
import json
import re

import numpy as np
import torch

ap = argparse.ArgumentParser()
ap.add_argument("--model", default="google--embeddinggemma-300m")
ap.add_argument("--l2", type=float, default=1.0)
ap.add_argument("--epochs", type=int, default=30)
ap.add_argument("--diagonal", action="store_true")
ap.add_argument("--threads", type=int, default=2)
a = ap.parse_args()
torch.manual_seed(7)
torch.set_num_threads(a.threads)

meta = [json.loads(l) for l in open(f".cache/query-vectors/{a.model}-train.jsonl")]
ids = [c["id"] for c in json.load(open("static-index/chunks.json"))]
P = np.fromfile(f"static-index/vectors/{a.model}/vectors.f32", dtype=np.float32)
d = P.size // len(ids)
P = torch.tensor(P.reshape(len(ids), d))
P = P / P.norm(dim=1, keepdim=True)
Q = torch.tensor(np.fromfile(f".cache/query-vectors/{a.model}-train.f32", dtype=np.float32).reshape(len(meta), d))
section = lambda i: re.sub(r"/(?:part-\d+|table-[^/]+)$", "", i)
row = {c: i for i, c in enumerate(ids)}
y = torch.tensor([row.get(m["chunk"], -1) for m in meta])
folds = np.array([m["fold"] for m in meta])
sections = [section(i) for i in ids]


def metrics(q: torch.Tensor, gold: torch.Tensor) -> dict[str, float]:
    order = torch.argsort(q @ P.T, dim=1, descending=True)[:, :50].tolist()
    ranks = []
    for o, g in zip(order, gold.tolist()):
        hits = [k for k, j in enumerate(o) if sections[j] == sections[g]]
        ranks.append(hits[0] + 1 if hits else 10**6)
    r = torch.tensor(ranks, dtype=torch.float)
    return {"hit1": float((r <= 1).float().mean()), "hit5": float((r <= 5).float().mean()), "mrr": float((1 / r).mean())}


def train(q: torch.Tensor, gold: torch.Tensor) -> torch.Tensor:
    eye = torch.eye(d)
    p = torch.nn.Parameter(torch.ones(d) if a.diagonal else eye.clone())
    w = (lambda: torch.diag(p)) if a.diagonal else (lambda: p)
    opt = torch.optim.Adam([p], lr=1e-3)
    for _ in range(a.epochs):
        for b in torch.randperm(len(gold)).split(64):
            x = q[b] @ w().T
            x = x / x.norm(dim=1, keepdim=True)
            loss = torch.nn.functional.cross_entropy((x @ P.T) / 0.05, gold[b]) + a.l2 * ((w() - eye) ** 2).sum() / d
            opt.zero_grad()
            loss.backward()
            opt.step()
    return w().detach()


keep = y >= 0
before, after = [], []
for f in range(5):
    test = torch.tensor(folds == f) & keep
    w = train(Q[~test & keep], y[~test & keep])
    qa = Q[test] @ w.T
    b, m = metrics(Q[test], y[test]), metrics(qa / qa.norm(dim=1, keepdim=True), y[test])
    before.append((int(test.sum()), b))
    after.append((int(test.sum()), m))
    print(f"fold {f}: n {int(test.sum())}, before {b}, after {m}", flush=True)
for name, rows in (("before", before), ("after", after)):
    n = sum(k for k, _ in rows)
    print(name, {k: round(sum(c * r[k] for c, r in rows) / n, 4) for k in ("hit1", "hit5", "mrr")})
