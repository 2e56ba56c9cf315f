"""Trim EmbeddingGemma's vocabulary to the tokens English text and the corpus use.

The token-embedding table is 262,144 rows of 768 (201 MB at int8): most of the download, and
almost all of it spent on scripts and words SkyCite never sees. This step keeps

  - every token of every text in the static index (passages, titles, summaries, windows,
    document and section nodes, synthetic questions) with both prompts, so the documents'
    vectors are exactly those of the untrimmed model;
  - every token of the most frequent English words (wordfreq's `en` list, top --words; each
    word as written, capitalised and upper-case, with and without a leading space), so
    questions in ordinary English keep their tokens;
  - all single characters of ASCII, Latin-1 and the general-punctuation block, the 256
    byte-fallback tokens and the special tokens;
  - and, for every kept token, the parts of every merge that builds it (recursively), so the
    BPE merges that fire on a kept text are all still there.

Kept tokens are renumbered in their original order. The tokenizer keeps only the merges whose
result is kept; a word outside the kept set is split into smaller kept pieces or, at worst,
into its bytes (the model has embeddings for both), never into <unk>.

Exactness (checked by `verify`): a text whose original tokens are all kept is tokenized into
the same tokens, renumbered, and the trimmed ONNX model gives it the same vector.
"""

from __future__ import annotations

import json
import re
from pathlib import Path

# Single characters kept whatever the texts hold: ASCII, Latin-1 Supplement, Latin Extended-A,
# General Punctuation, currency and letterlike symbols, arrows and mathematical operators.
KEPT_CHAR_RANGES = [(0x20, 0x7E), (0xA0, 0x17F), (0x2000, 0x206F), (0x20A0, 0x214F), (0x2190, 0x22FF)]
SPACE = "\u2581"  # the tokenizer's space marker


def strings_in(value, out: list[str]) -> None:
    if isinstance(value, str):
        out.append(value)
    elif isinstance(value, dict):
        for v in value.values():
            strings_in(v, out)
    elif isinstance(value, list):
        for v in value:
            strings_in(v, out)


def index_texts(index_dir: Path) -> list[str]:
    """Every string in the static index's text files (a superset of what the model embeds)."""
    texts: list[str] = []
    for name in ("chunks.json", "windows.json", "documents.json", "questions.json"):
        p = index_dir / name
        if p.exists():
            strings_in(json.loads(p.read_text()), texts)
    if not texts:
        raise FileNotFoundError(f"{index_dir} holds no chunks.json: build the index first (npm run index).")
    return texts


def english_words(n: int) -> list[str]:
    from wordfreq import top_n_list

    words = [w for w in top_n_list("en", n) if re.fullmatch(r"[A-Za-z][A-Za-z'\-]*", w)]
    # A question follows the query prompt's ": ", so its words carry a leading space; the bare
    # lower-case form covers words after "(", "/" or "-".
    forms: list[str] = []
    for w in words:
        forms += [" " + w, " " + w.capitalize(), w]
    return forms


def keep_set(tok_json: dict, texts: list[str], tokenizer) -> set[int]:
    vocab: dict[str, int] = tok_json["model"]["vocab"]
    keep: set[int] = set()
    for a in tok_json["added_tokens"]:
        if a["special"]:
            keep.add(a["id"])
    for piece, i in vocab.items():
        if re.fullmatch(r"<0x[0-9A-F]{2}>", piece):
            keep.add(i)
        elif len(piece) == 1 and any(lo <= ord(piece) <= hi for lo, hi in KEPT_CHAR_RANGES):
            keep.add(i)
        elif piece in (SPACE, "\n", "\t"):
            keep.add(i)
    for start in range(0, len(texts), 2000):
        for ids in tokenizer(texts[start : start + 2000], add_special_tokens=False)["input_ids"]:
            keep.update(ids)
    # merge closure: the parts of every merge that builds a kept token
    parts_of: dict[str, list[tuple[str, str]]] = {}
    for m in tok_json["model"]["merges"]:
        a, b = m if isinstance(m, list) else m.split(" ", 1)
        parts_of.setdefault(a + b, []).append((a, b))
    inv = {i: p for p, i in vocab.items()}
    stack = [inv[i] for i in keep if i in inv]
    seen = set(stack)
    while stack:
        piece = stack.pop()
        for a, b in parts_of.get(piece, []):
            for part in (a, b):
                if part not in seen and part in vocab:
                    seen.add(part)
                    keep.add(vocab[part])
                    stack.append(part)
    # added tokens past the table (Gemma's image tokens) have no embedding row in this model
    return {i for i in keep if i < len(vocab)}


def trim_tokenizer(tok_json: dict, tok_config: dict, keep: set[int]) -> tuple[dict, dict, list[int]]:
    """New tokenizer.json and tokenizer_config.json; returns also new→old id order."""
    order = sorted(keep)
    new_id = {old: new for new, old in enumerate(order)}
    model = tok_json["model"]
    vocab = {p: new_id[i] for p, i in model["vocab"].items() if i in new_id}
    merges = []
    for m in model["merges"]:
        a, b = m if isinstance(m, list) else m.split(" ", 1)
        if a + b in vocab and a in vocab and b in vocab:
            merges.append(m)
    out = dict(tok_json)
    out["model"] = {**model, "vocab": vocab, "merges": merges}
    out["added_tokens"] = [{**a, "id": new_id[a["id"]]} for a in tok_json["added_tokens"] if a["id"] in new_id]
    post = json.loads(json.dumps(tok_json["post_processor"]))
    for spec in (post or {}).get("special_tokens", {}).values():
        spec["ids"] = [new_id[i] for i in spec["ids"]]
    out["post_processor"] = post
    config = dict(tok_config)
    config["added_tokens_decoder"] = {str(new_id[int(k)]): v for k, v in tok_config["added_tokens_decoder"].items() if int(k) in new_id}
    # tokens named in the config must still exist
    for key in ("bos_token", "eos_token", "pad_token", "unk_token"):
        if key in config and config[key] not in vocab and not any(a["content"] == config[key] for a in out["added_tokens"]):
            raise ValueError(f"{key} {config[key]!r} was trimmed away")
    for key in ("boi_token", "eoi_token", "image_token", "extra_special_tokens"):
        config.pop(key, None)
    return out, config, order


def trim_onnx(src: Path, dst: Path, order: list[int], vocab_size: int) -> str:
    """Slice the token-embedding initializer (the only one with vocab_size rows) to the kept rows."""
    import numpy as np
    import onnx
    from onnx import numpy_helper

    m = onnx.load(str(src))
    hits = [t for t in m.graph.initializer if len(t.dims) == 2 and t.dims[0] == vocab_size]
    if len(hits) != 1:
        raise ValueError(f"expected one initializer with {vocab_size} rows in {src}, found {len(hits)}")
    table = hits[0]
    arr = numpy_helper.to_array(table)
    sliced = numpy_helper.from_array(np.ascontiguousarray(arr[np.asarray(order)]), table.name)
    table.CopyFrom(sliced)
    dst.parent.mkdir(parents=True, exist_ok=True)
    onnx.save(m, str(dst))
    return table.name


def verify(full_tok, trimmed_tok, order: list[int], texts: list[str], full_onnx: Path | None = None, trimmed_onnx: Path | None = None,
           model_texts: list[str] | None = None) -> dict:
    """Same tokens (renumbered) for every text whose tokens are all kept; same vectors for model_texts."""
    new_id = {old: new for new, old in enumerate(order)}
    covered = changed = 0
    for start in range(0, len(texts), 2000):
        batch = texts[start : start + 2000]
        a = full_tok(batch, add_special_tokens=True)["input_ids"]
        b = trimmed_tok(batch, add_special_tokens=True)["input_ids"]
        for x, y in zip(a, b):
            if all(i in new_id for i in x):
                covered += 1
                if [new_id[i] for i in x] != y:
                    changed += 1
    result = {"texts": len(texts), "all_tokens_kept": covered, "tokenized_differently": changed}
    if full_onnx and trimmed_onnx and model_texts:
        import numpy as np
        import onnxruntime as ort

        so = ort.SessionOptions()
        so.intra_op_num_threads = 2
        s_full = ort.InferenceSession(str(full_onnx), so, providers=["CPUExecutionProvider"])
        s_trim = ort.InferenceSession(str(trimmed_onnx), so, providers=["CPUExecutionProvider"])
        cos = []
        for t in model_texts:
            x = full_tok([t], return_tensors="np")
            y = trimmed_tok([t], return_tensors="np")
            (u,) = s_full.run(["sentence_embedding"], {"input_ids": x["input_ids"].astype(np.int64), "attention_mask": x["attention_mask"].astype(np.int64)})
            (v,) = s_trim.run(["sentence_embedding"], {"input_ids": y["input_ids"].astype(np.int64), "attention_mask": y["attention_mask"].astype(np.int64)})
            cos.append(float(np.dot(u[0], v[0]) / np.linalg.norm(u[0]) / np.linalg.norm(v[0])))
        result["vector_cosine_min"] = round(min(cos), 6)
        result["vector_texts"] = len(cos)
    return result
