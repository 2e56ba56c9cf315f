"""Export a trained model to ONNX for transformers.js, the way the base embedder
is exported (tools/export_minilm.py): fp32 graph with the dynamo exporter, then
int8 weight-only quantization (int8 download, fp32 compute), tokenizer and config.

  --kind embedder  a sentence-transformers folder (mean pooling done in the app):
                   output last_hidden_state, like the base MiniLM.
  --kind reranker  a cross-encoder folder (BertForSequenceClassification, one logit):
                   output logits.

Checks the int8 file against PyTorch on the training data's held-back texts and
prints the agreement.

    .tmp/venv-train/bin/python tools/train/export_onnx.py --kind reranker --source .cache/models/reranker \\
        --out public/models/skycite/reranker-minilm-l3
"""

from __future__ import annotations

import argparse
import json
import shutil
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

import numpy as np  # noqa: E402
import onnx  # noqa: E402
import onnxruntime as ort  # noqa: E402
import torch  # noqa: E402
from transformers import AutoTokenizer, BertForSequenceClassification, BertModel  # noqa: E402

from export_minilm import LastHiddenState, pool, quantize_weight_only  # noqa: E402

from common import read_jsonl  # noqa: E402


class Logits(torch.nn.Module):
    def __init__(self, model: BertForSequenceClassification) -> None:
        super().__init__()
        self.model = model

    def forward(self, input_ids, attention_mask, token_type_ids):
        return self.model(input_ids=input_ids, attention_mask=attention_mask, token_type_ids=token_type_ids).logits


def strip_metadata(proto) -> None:
    for node in proto.graph.node:
        del node.metadata_props[:]
        node.doc_string = ""
    for vi in [*proto.graph.input, *proto.graph.output, *proto.graph.value_info]:
        del vi.metadata_props[:]
    for init in proto.graph.initializer:
        del init.metadata_props[:]


def export(module: torch.nn.Module, tok, output: str, dst: Path, opset: int) -> None:
    sample = tok(["a short question", "a second, longer question for the batch"], ["a passage", "another passage text"], padding=True, return_tensors="pt")
    args = (sample["input_ids"], sample["attention_mask"], sample["token_type_ids"])
    batch = torch.export.Dim("batch_size", min=1, max=1024)
    seq = torch.export.Dim("sequence_length", min=1, max=512)
    shapes = {k: {0: batch, 1: seq} for k in ("input_ids", "attention_mask", "token_type_ids")}
    with torch.no_grad():
        program = torch.onnx.export(module.eval(), args, dynamo=True, opset_version=opset,
                                    input_names=["input_ids", "attention_mask", "token_type_ids"], output_names=[output],
                                    dynamic_shapes=shapes, external_data=False, optimize=True)
    proto = program.model_proto
    strip_metadata(proto)
    dst.parent.mkdir(parents=True, exist_ok=True)
    onnx.save_model(proto, str(dst), save_as_external_data=False)
    onnx.checker.check_model(str(dst))


def main() -> int:
    ap = argparse.ArgumentParser()
    ap.add_argument("--kind", choices=["embedder", "reranker"], required=True)
    ap.add_argument("--source", type=Path, required=True)
    ap.add_argument("--out", type=Path, required=True)
    ap.add_argument("--data", type=Path, default=Path(".cache/train"))
    ap.add_argument("--max-len", type=int, default=None, help="model_max_length written for transformers.js")
    ap.add_argument("--opset", type=int, default=18)
    ap.add_argument("--keep-fp32", action="store_true", help="keep onnx/model.onnx next to the int8 file")
    a = ap.parse_args()

    src, out = a.source, a.out
    tok = AutoTokenizer.from_pretrained(str(src))
    fp32 = out / "onnx" / "model.onnx"
    int8 = out / "onnx" / "model_quantized.onnx"
    if a.kind == "embedder":
        bert = BertModel.from_pretrained(str(src), attn_implementation="eager", add_pooling_layer=False)
        export(LastHiddenState(bert), tok, "last_hidden_state", fp32, a.opset)
        max_len = a.max_len or json.loads((src / "sentence_bert_config.json").read_text())["max_seq_length"]
    else:
        clf = BertForSequenceClassification.from_pretrained(str(src), attn_implementation="eager")
        export(Logits(clf), tok, "logits", fp32, a.opset)
        max_len = a.max_len or json.loads((src / "tokenizer_config.json").read_text()).get("model_max_length", 512)
    quantize_weight_only(fp32, int8)

    for name in ("config.json", "special_tokens_map.json", "tokenizer.json", "tokenizer_config.json"):
        if (src / name).exists():
            shutil.copyfile(src / name, out / name)
    tc = json.loads((out / "tokenizer_config.json").read_text())
    tc["model_max_length"] = max_len
    (out / "tokenizer_config.json").write_text(json.dumps(tc, indent=2) + "\n")
    tj = json.loads((out / "tokenizer.json").read_text())
    tj["truncation"] = {"direction": "Right", "max_length": max_len, "strategy": "LongestFirst", "stride": 0}
    tj["padding"] = None
    (out / "tokenizer.json").write_text(json.dumps(tj, ensure_ascii=False, separators=(",", ":")))

    # agreement of the int8 file with PyTorch on held-back data
    pairs = [p for p in read_jsonl(a.data / "pairs.jsonl") if p["split"] == "heldback"][:64] if (a.data / "pairs.jsonl").exists() else []
    sess = ort.InferenceSession(str(int8), providers=["CPUExecutionProvider"])
    if pairs:
        if a.kind == "embedder":
            texts = [p["q"] for p in pairs] + [p["posWin"] for p in pairs]
            b = tok(texts, padding=True, truncation=True, max_length=max_len, return_tensors="pt")
            with torch.no_grad():
                ref = pool(bert.eval()(**b).last_hidden_state.numpy(), b["attention_mask"].numpy())
            (h,) = sess.run(["last_hidden_state"], {k: b[k].numpy().astype(np.int64) for k in ("input_ids", "attention_mask", "token_type_ids")})
            got = pool(h, b["attention_mask"].numpy())
            cos = (ref * got).sum(1)
            print(f"[export] int8 vs torch cosine on {len(texts)} held-back texts: mean {cos.mean():.5f}, min {cos.min():.5f}")
        else:
            qs = [p["q"] for p in pairs for _ in range(2)]
            ws = [w for p in pairs for w in (p["posWin"], (p["negWins"] or [p["posWin"]])[0])]
            b = tok(qs, ws, padding=True, truncation=True, max_length=max_len, return_tensors="pt")
            with torch.no_grad():
                ref = clf.eval()(**b).logits.numpy()[:, 0]
            (lg,) = sess.run(["logits"], {k: b[k].numpy().astype(np.int64) for k in ("input_ids", "attention_mask", "token_type_ids")})
            got = lg[:, 0]
            print(f"[export] int8 vs torch logits on {len(qs)} held-back pairs: max |Δ| {np.abs(ref - got).max():.4f}, "
                  f"rank correlation {np.corrcoef(np.argsort(np.argsort(ref)), np.argsort(np.argsort(got)))[0, 1]:.4f}")
    if not a.keep_fp32:
        fp32.unlink()
    for f in sorted(out.rglob("*")):
        if f.is_file():
            print(f"[export] wrote {f.relative_to(out)} ({f.stat().st_size} bytes)")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
