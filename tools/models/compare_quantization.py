"""Dense-only retrieval with EmbeddingGemma variants (fp32, 8-bit, 4-bit, trimmed vocabulary), to
choose the quantization by retrieval figures rather than by cosine alone.

Each variant embeds the static index's retrieval strings (document prompt, cut at 512 tokens as
the app does) and the questions (query prompt); passages are ranked by cosine. Questions: the
answerable questions of the given evaluation files (gold as `npm run eval` decides it: a quote in
the whitespace-collapsed passage text, or a curated chunk index) and one synthetic question per
passage (corpus-build/data/synthetic-questions.jsonl, seeded choice of style; gold = its passage).

Usage (the models venv):
  .tmp/venv-models/bin/python tools/models/compare_quantization.py \
      --model fp32=.cache/embeddinggemma/onnx-fp32/model.onnx:.cache/embeddinggemma/st \
      --model q8=public/models/google/embeddinggemma-300m/onnx/model_quantized.onnx:public/models/google/embeddinggemma-300m \
      --questions ../shared/eval/retrieval-dev.jsonl --out .tmp/quant-compare.json

Each --model is name=onnx_path:tokenizer_folder. Vectors are cached per variant in --cache.
"""

from __future__ import annotations

import argparse
import hashlib
import json
import random
import re
import sys
import time
from pathlib import Path

import numpy as np

QUERY = "task: search result | query: "
DOCUMENT = "title: none | text: "
MAX_TOKENS = 512


def collapse(s: str) -> str:
    return re.sub(r"\s+", " ", s).strip()


def is_hit(q: dict, chunk: dict) -> bool:
    if q.get("evidence"):
        text = collapse(chunk["text"])
        if any(collapse(e["quote"]) in text for e in q["evidence"]):
            return True
    if q.get("gold_chunk_index") and chunk["docId"] == "skysafe-sora-curated":
        idx = (chunk.get("extra") or {}).get("chunkIndex")
        if idx is not None and idx in q["gold_chunk_index"]:
            return True
    return False


def embed(onnx_path: str, tok_dir: str, texts: list[str], threads: int, batch: int = 16) -> np.ndarray:
    import onnxruntime as ort
    from transformers import PreTrainedTokenizerFast

    tok = PreTrainedTokenizerFast(tokenizer_file=str(Path(tok_dir) / "tokenizer.json"))
    tok.pad_token = "<pad>"
    so = ort.SessionOptions()
    so.intra_op_num_threads = threads
    sess = ort.InferenceSession(onnx_path, so, providers=["CPUExecutionProvider"])
    order = sorted(range(len(texts)), key=lambda i: len(texts[i]))
    out = np.zeros((len(texts), 768), dtype=np.float32)
    t0 = time.time()
    for start in range(0, len(order), batch):
        idx = order[start : start + batch]
        enc = tok([texts[i] for i in idx], padding=True, truncation=True, max_length=MAX_TOKENS, return_tensors="np")
        (v,) = sess.run(["sentence_embedding"], {"input_ids": enc["input_ids"].astype(np.int64), "attention_mask": enc["attention_mask"].astype(np.int64)})
        v = v / np.linalg.norm(v, axis=1, keepdims=True)
        out[idx] = v
        if (start // batch) % 10 == 0:
            print(f"  {start + len(idx)}/{len(texts)} ({time.time() - t0:.0f} s)", file=sys.stderr, flush=True)
    return out


def metrics(ranks: list[int]) -> dict:
    n = len(ranks)
    rate = lambda k: sum(1 for r in ranks if 0 < r <= k) / n if n else 0.0
    return {"n": n, "hit@1": round(rate(1), 3), "hit@5": round(rate(5), 3), "mrr": round(sum(1 / r for r in ranks if r) / n if n else 0.0, 3)}


def main(argv: list[str]) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--model", action="append", required=True, help="name=onnx_path:tokenizer_folder")
    ap.add_argument("--index", default="static-index")
    ap.add_argument("--questions", action="append", default=[])
    ap.add_argument("--synthetic", default="corpus-build/data/synthetic-questions.jsonl")
    ap.add_argument("--threads", type=int, default=2)
    ap.add_argument("--cache", default=".cache/quant-compare")
    ap.add_argument("--out", required=True)
    args = ap.parse_args(argv)

    chunks = json.loads((Path(args.index) / "chunks.json").read_text())
    ids = {c["id"]: i for i, c in enumerate(chunks)}
    sets: dict[str, list[tuple[str, str, set[int]]]] = {}
    for path in args.questions:
        for line in Path(path).read_text().splitlines():
            q = json.loads(line)
            if not q.get("answerable", True):
                continue
            gold = {i for i, c in enumerate(chunks) if is_hit(q, c)}
            if not gold:
                continue
            key = f"{Path(path).stem}/{q['corpus']}"
            sets.setdefault(key, []).append((q["id"], q["question"], gold))
            if q.get("variant") == "reworked":
                sets.setdefault(key + "/reworked", []).append((q["id"], q["question"], gold))
    rng = random.Random(23)
    for line in Path(args.synthetic).read_text().splitlines():
        rec = json.loads(line)
        if rec["chunk"] in ids and rec.get("questions"):
            q = rng.choice(rec["questions"])
            sets.setdefault("synthetic", []).append((rec["chunk"], q["q"], {ids[rec["chunk"]]}))

    doc_texts = [DOCUMENT + c["retrieval"] for c in chunks]
    all_q = sorted({q for rows in sets.values() for _, q, _ in rows})
    report = {"questions": {k: len(v) for k, v in sets.items()}, "variants": {}}
    cache = Path(args.cache)
    cache.mkdir(parents=True, exist_ok=True)
    for spec in args.model:
        name, rest = spec.split("=", 1)
        onnx_path, tok_dir = rest.rsplit(":", 1)
        key = hashlib.sha256(f"{Path(onnx_path).stat().st_size}:{onnx_path}:{len(doc_texts)}:{len(all_q)}".encode()).hexdigest()[:16]
        f = cache / f"{name}-{key}.npz"
        t0 = time.time()
        if f.exists():
            z = np.load(f)
            D, Q = z["D"], z["Q"]
        else:
            print(f"[{name}] embedding {len(doc_texts)} passages, {len(all_q)} questions", file=sys.stderr, flush=True)
            D = embed(onnx_path, tok_dir, doc_texts, args.threads)
            Q = embed(onnx_path, tok_dir, [QUERY + q for q in all_q], args.threads)
            np.savez(f, D=D, Q=Q)
        qi = {q: i for i, q in enumerate(all_q)}
        S = Q @ D.T
        per = {}
        for k, rows in sets.items():
            ranks = []
            for _, q, gold in rows:
                top = np.argsort(-S[qi[q]])[:10]
                r = next((j + 1 for j, c in enumerate(top) if c in gold), 0)
                ranks.append(r)
            per[k] = metrics(ranks)
        report["variants"][name] = {"onnx": onnx_path, "bytes": Path(onnx_path).stat().st_size, "seconds": round(time.time() - t0), "metrics": per}
        print(json.dumps({name: per}), flush=True)
    Path(args.out).write_text(json.dumps(report, indent=2))
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
