"""Numerical verification of a converted MLC model folder.

Reads ONLY the converted files (ndarray-cache.json, params_shard_*.bin,
mlc-chat-config.json), unpacks the 4-bit groups the way the WebGPU kernels do
(value k of a row = (word[k // 8] >> 4 * (k % 8)) & 15, weight = (value - 7) *
scale[k // 32], computed in the model dtype), runs a plain Qwen2 forward pass in
torch fp32 with those weights, and compares the logits with the dequantized
reference model in transformers (fp32, its own forward).

Checks and what they catch:
  A. forward check: the same hand-written forward, fed the reference weights
     unquantized, must match transformers' logits (max |diff| <= 1e-2). This
     shows that C measures the conversion, not a bug in the forward code.
  B. element bound: every dequantized weight is within half a quantization
     step of the reference weight (|w - w'| <= scale / 2, plus float16 rounding
     for q4f16_1). Catches name / q,k,v order / packing / axis mistakes exactly.
  C. logits: cosine, max |diff|, top-1 agreement over the prompt positions.
     Quantization (re-quantizing already-quantized weights) and the single
     tied embedding (the GGUF stores two differently quantized copies) make these
     imperfect; the gate is loose (mean cosine >= 0.95, top-1 >= 0.70) so that
     it fails on layout bugs (which give ~0 agreement), and the figures are
     reported as measured.

Standalone:  .tmp/venv-models/bin/python tools/models/verify_mlc.py \
               --model-dir .cache/models/<id>/resolve/main --gguf path/to/model.gguf
(or `npm run models:prepare -- --verify`, which reuses the loaded model).
Activations run in fp32 here; the browser runs q4f16_1 with float16 activations,
which this check does not emulate.
"""

from __future__ import annotations

import argparse
import json
import math
import os
import sys
import time
from pathlib import Path

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parent))
from mlc_format import iter_ndarray_cache  # noqa: E402

# Prompts: two plain texts, one chat-formatted (qwen2 template), one code.
PROMPTS = [
    "Under EU Regulation 2019/947, a drone operator in the open category must",
    "<|im_start|>system\nYou are a helpful assistant.<|im_end|>\n<|im_start|>user\nWhat is a drone?<|im_end|>\n<|im_start|>assistant\n",
    "def fibonacci(n):\n    \"\"\"Return the n-th Fibonacci number.\"\"\"\n",
    "The maximum take-off mass of a C0 class drone is",
]
GATE = {"forward_max_abs": 1e-2, "mean_cosine": 0.95, "top1": 0.70}


def unpack_q4(q_weight: np.ndarray) -> np.ndarray:
    """uint32 [rows, words] -> uint8 [rows, words * 8], element k at bits 4 * (k % 8) of word k // 8."""
    rows, words = q_weight.shape
    shifts = (np.arange(8, dtype=np.uint32) * 4)[None, None, :]
    vals = (q_weight[:, :, None] >> shifts) & np.uint32(0xF)
    return vals.reshape(rows, words * 8).astype(np.uint8)


def dequantize(q_weight: np.ndarray, q_scale: np.ndarray) -> np.ndarray:
    """As the kernels do, in the scale's dtype: (q - 7) * scale of the value's group of 32."""
    dt = q_scale.dtype.type
    q = unpack_q4(q_weight).astype(dt)
    scale = np.repeat(q_scale, 32, axis=1)
    return ((q - dt(7)) * scale).astype(dt)


class MLCWeights:
    """Weights read from the converted files, dequantized on demand (name without .q_weight/.q_scale)."""

    def __init__(self, model_dir: Path):
        self.raw = dict(iter_ndarray_cache(model_dir))
        self.cfg = json.loads((model_dir / "mlc-chat-config.json").read_text())["model_config"]

    def quantized_names(self) -> list[str]:
        return [n[: -len(".q_weight")] for n in self.raw if n.endswith(".q_weight")]

    def plain_names(self) -> list[str]:
        return [n for n in self.raw if not n.endswith((".q_weight", ".q_scale"))]

    def scale(self, base: str) -> np.ndarray:
        return self.raw[base + ".q_scale"]

    def get(self, name: str) -> np.ndarray:
        if name == "lm_head":  # tied embeddings: the output projection is the token embedding
            name = "model.embed_tokens"
        if name + ".q_weight" in self.raw:
            return dequantize(self.raw[name + ".q_weight"], self.raw[name + ".q_scale"])
        return self.raw[name]


class ReferenceWeights:
    """The reference (dequantized GGUF) weights arranged like the MLC ones, unquantized, built on demand.

    ``embedding`` is used for the token lookup, ``head`` for the output projection
    (transformers keeps them apart: the GGUF loader unties them).
    """

    def __init__(self, sd: dict, embedding: np.ndarray, head: np.ndarray):
        self.sd, self.embedding, self.head = sd, embedding, head

    def get(self, name: str) -> np.ndarray:
        sd = self.sd
        if name == "model.embed_tokens":
            return self.embedding
        if name == "lm_head":
            return self.head
        if name.endswith("self_attn.c_attn"):
            return np.concatenate([sd[name[: -len("c_attn")] + f"{x}_proj.weight"] for x in "qkv"])
        if name.endswith("self_attn.c_attn.bias"):
            return np.concatenate([sd[name[: -len("c_attn.bias")] + f"{x}_proj.bias"] for x in "qkv"])
        if name.endswith("mlp.gate_up_proj"):
            p = name[: -len("gate_up_proj")]
            return np.concatenate([sd[p + "gate_proj.weight"], sd[p + "up_proj.weight"]])
        if name.endswith(("o_proj", "down_proj")):
            return sd[name + ".weight"]
        return sd[name]


def qwen2_logits(ws, cfg: dict, prompts: list[list[int]]):
    """A plain Qwen2 forward (no KV cache), fp32 in torch, layer by layer over all prompts."""
    import torch  # noqa: PLC0415

    n_q, n_kv, d = cfg["num_attention_heads"], cfg["num_key_value_heads"], cfg["head_dim"]
    eps = cfg["rms_norm_eps"]

    def W(name):
        return torch.from_numpy(np.array(ws.get(name), dtype=np.float32))

    def rms(x, w):
        return x * torch.rsqrt(x.pow(2).mean(-1, keepdim=True) + eps) * w

    def rope_tables(T):
        pos = torch.arange(T, dtype=torch.float64)
        inv = 1.0 / (cfg["rope_theta"] ** (torch.arange(0, d, 2, dtype=torch.float64) / d))
        ang = torch.outer(pos, inv)
        return torch.cat([ang.cos(), ang.cos()], -1).float(), torch.cat([ang.sin(), ang.sin()], -1).float()

    def rope(x, cos, sin):  # x [heads, T, d], rotate-half (NeoX) layout
        x1, x2 = x[..., : d // 2], x[..., d // 2 :]
        return x * cos + torch.cat([-x2, x1], -1) * sin

    emb = W("model.embed_tokens")
    xs = [emb[torch.tensor(ids)] for ids in prompts]
    del emb
    tables = [rope_tables(len(ids)) for ids in prompts]
    masks = [torch.full((len(ids), len(ids)), float("-inf")).triu(1) for ids in prompts]
    for i in range(cfg["num_hidden_layers"]):
        p = f"model.layers.{i}"
        w_in, w_post = W(f"{p}.input_layernorm.weight"), W(f"{p}.post_attention_layernorm.weight")
        w_qkv, b_qkv, w_o = W(f"{p}.self_attn.c_attn"), W(f"{p}.self_attn.c_attn.bias"), W(f"{p}.self_attn.o_proj")
        w_gu, w_down = W(f"{p}.mlp.gate_up_proj"), W(f"{p}.mlp.down_proj")
        for j, x in enumerate(xs):
            T = x.shape[0]
            cos, sin = tables[j]
            h = rms(x, w_in)
            q, k, v = (h @ w_qkv.T + b_qkv).split([n_q * d, n_kv * d, n_kv * d], -1)
            q = rope(q.view(T, n_q, d).transpose(0, 1), cos, sin)
            k = rope(k.view(T, n_kv, d).transpose(0, 1), cos, sin).repeat_interleave(n_q // n_kv, 0)
            v = v.view(T, n_kv, d).transpose(0, 1).repeat_interleave(n_q // n_kv, 0)
            att = torch.softmax(q @ k.transpose(1, 2) / math.sqrt(d) + masks[j], -1)
            x = x + (att @ v).transpose(0, 1).reshape(T, n_q * d) @ w_o.T
            gate, up = (rms(x, w_post) @ w_gu.T).chunk(2, -1)
            xs[j] = x + (torch.nn.functional.silu(gate) * up) @ w_down.T
    w_norm, head = W("model.norm.weight"), W("lm_head")
    return [rms(x, w_norm) @ head.T for x in xs]


def pick_embedding(sd: dict, mlc: MLCWeights) -> tuple[np.ndarray, str]:
    """Which reference matrix the tied embedding was made from: the one closest to the converted one."""
    deq, scale = mlc.get("model.embed_tokens"), mlc.scale("model.embed_tokens")
    cands = [("model.embed_tokens.weight", sd["model.embed_tokens.weight"])]
    if "lm_head.weight" in sd:
        cands.append(("lm_head.weight", sd["lm_head.weight"]))
    best = min(cands, key=lambda c: bound_excess(c[1], deq, scale))
    return best[1], best[0]


def bound_excess(ref: np.ndarray, deq: np.ndarray, scale: np.ndarray) -> float:
    """Largest |ref - deq| beyond half a quantization step (<= 0 means within the bound).

    For float16 the quantizer's own arithmetic (w/scale, +7, the product) rounds
    in float16; 2 % of a step covers that.
    """
    rows = ref.shape[0]
    worst = -np.inf
    rel_slack = 0.02 if scale.dtype == np.float16 else 1e-3
    for r0 in range(0, rows, 16384):
        r1 = min(rows, r0 + 16384)
        step = np.repeat(scale[r0:r1].astype(np.float32), 32, axis=1)
        ref_c = ref[r0:r1].astype(scale.dtype).astype(np.float32)  # the value the quantizer saw
        err = np.abs(ref_c - deq[r0:r1].astype(np.float32))
        worst = max(worst, float((err - step * (0.5 + rel_slack)).max()))
    return worst


def stats(ref, got) -> dict:
    import torch  # noqa: PLC0415

    cos = torch.nn.functional.cosine_similarity(ref, got, dim=-1)
    top1 = (ref.argmax(-1) == got.argmax(-1)).float()
    top5 = torch.tensor([int(r) in g for r, g in zip(ref.argmax(-1).tolist(), got.topk(5, -1).indices.tolist())]).float()
    lp_ref, lp_got = torch.log_softmax(ref.double(), -1), torch.log_softmax(got.double(), -1)
    kl = (lp_ref.exp() * (lp_ref - lp_got)).sum(-1)
    return {
        "positions": int(ref.shape[0]),
        "max_abs": float((ref - got).abs().max()),
        "mean_abs": float((ref - got).abs().mean()),
        "mean_cosine": float(cos.mean()),
        "min_cosine": float(cos.min()),
        "top1": float(top1.mean()),
        "ref_top1_in_top5": float(top5.mean()),
        "mean_kl": float(kl.mean()),
    }


def verify_model(model_dir: Path, hf_model, tokenizer, quant: str, log=print) -> dict:
    import torch  # noqa: PLC0415

    t0 = time.monotonic()
    model_dir = Path(model_dir)
    mlc = MLCWeights(model_dir)
    cfg = mlc.cfg
    sd = {k: v.detach().numpy() for k, v in hf_model.state_dict().items()}
    emb_ref, emb_name = pick_embedding(sd, mlc)
    # What the converter quantized (one matrix for both ends, as the library is tied) ...
    ref = ReferenceWeights(sd, emb_ref, emb_ref)
    # ... and the reference model exactly as transformers runs it (embedding and lm_head apart).
    untied = ReferenceWeights(sd, sd["model.embed_tokens.weight"], sd.get("lm_head.weight", sd["model.embed_tokens.weight"]))
    log(f"verify {model_dir.parent.parent.name}: tied embedding matches reference {emb_name}")

    # B. element bound for every quantized tensor, exact equality for the rest.
    worst_bound, bound_fail, rel_err = -np.inf, [], {}
    for base in mlc.quantized_names():
        r, q = ref.get(base), mlc.get(base)
        ex = bound_excess(r, q, mlc.scale(base))
        worst_bound = max(worst_bound, ex)
        if ex > 0:
            bound_fail.append(f"{base} (+{ex:.3g})")
        rel_err.setdefault(base.split(".")[-1], []).append(float(np.linalg.norm(r - q.astype(np.float32)) / np.linalg.norm(r)))
    plain = mlc.plain_names()
    plain_fail = [n for n in plain if not np.array_equal(ref.get(n).astype(mlc.get(n).dtype), mlc.get(n))]
    n_q = len(mlc.quantized_names())
    log(f"  element bound: {n_q} quantized tensors, {len(bound_fail)} outside |w-w'| <= scale/2; "
        f"{len(plain)} plain tensors, {len(plain_fail)} not equal ({time.monotonic() - t0:.1f}s)")

    # A + C. logits.
    hf_model.eval()
    ids = [tokenizer(p, add_special_tokens=False)["input_ids"] for p in PROMPTS]
    with torch.no_grad():
        all_hf = [hf_model(torch.tensor([x])).logits[0].float() for x in ids]
        all_ref = qwen2_logits(untied, cfg, ids)
        all_mlc = qwen2_logits(mlc, cfg, ids)
        # Diagnostic: the tied embedding alone (unquantized weights, one matrix for both ends).
        all_tied = qwen2_logits(ref, cfg, ids) if emb_name != "model.embed_tokens.weight" or "lm_head.weight" in sd else all_ref
    hf, r, m = torch.cat(all_hf), torch.cat(all_ref), torch.cat(all_mlc)
    forward = stats(hf, r)
    converted = stats(hf, m)
    tied_only = stats(hf, torch.cat(all_tied))
    per_prompt = [stats(a, b) for a, b in zip(all_hf, all_mlc)]
    passed = (forward["max_abs"] <= GATE["forward_max_abs"] and not bound_fail and not plain_fail
              and converted["mean_cosine"] >= GATE["mean_cosine"] and converted["top1"] >= GATE["top1"])
    summary = {
        "passed": bool(passed),
        "gate": GATE,
        "positions": converted["positions"],
        "forward_check_max_abs": forward["max_abs"],
        "element_bound_violations": len(bound_fail),
        "plain_tensor_mismatches": len(plain_fail),
        "logits_max_abs": converted["max_abs"],
        "logits_mean_cosine": converted["mean_cosine"],
        "logits_min_cosine": converted["min_cosine"],
        "top1_agreement": converted["top1"],
        "ref_top1_in_top5": converted["ref_top1_in_top5"],
        "mean_kl": converted["mean_kl"],
        "tied_embedding_only_top1": tied_only["top1"],
        "tied_embedding_only_mean_cosine": tied_only["mean_cosine"],
        "seconds": round(time.monotonic() - t0, 1),
    }
    log(f"  forward check (reference weights, our forward vs transformers): max|diff| {forward['max_abs']:.2e}")
    log(f"  converted vs reference over {converted['positions']} positions: max|diff| {converted['max_abs']:.3f}, "
        f"cosine mean {converted['mean_cosine']:.4f} / min {converted['min_cosine']:.4f}, top-1 {converted['top1']:.3f}, "
        f"ref top-1 in top-5 {converted['ref_top1_in_top5']:.3f}, KL {converted['mean_kl']:.4f}")
    log(f"  of which the tied embedding alone (no re-quantization): cosine mean {tied_only['mean_cosine']:.4f}, "
        f"top-1 {tied_only['top1']:.3f}, KL {tied_only['mean_kl']:.4f}")
    log(f"  verification {'PASSED' if passed else 'FAILED'} ({summary['seconds']}s)")
    return {
        "summary": summary,
        "forward_check": forward,
        "converted_vs_reference": converted,
        "tied_embedding_only": tied_only,
        "per_prompt": per_prompt,
        "weight_relative_error": {k: {"mean": float(np.mean(v)), "max": float(np.max(v))} for k, v in rel_err.items()},
        "element_bound_worst_excess": worst_bound,
        "element_bound_failures": bound_fail[:20],
        "plain_tensor_failures": plain_fail[:20],
        "tied_embedding_reference": emb_name,
        "prompts": PROMPTS,
        "prompt_tokens": [len(x) for x in ids],
    }


def main() -> int:
    ap = argparse.ArgumentParser(description="Verify a converted MLC model folder against its GGUF.")
    ap.add_argument("--model-dir", required=True, help=".../<model-id>/resolve/main")
    ap.add_argument("--gguf", required=True)
    args = ap.parse_args()
    import torch  # noqa: PLC0415
    from transformers import AutoModelForCausalLM, AutoTokenizer  # noqa: PLC0415

    torch.set_num_threads(int(os.environ.get("MODELS_THREADS", "2")))
    g = Path(args.gguf).resolve()
    tok = AutoTokenizer.from_pretrained(str(g.parent), gguf_file=g.name)
    model = AutoModelForCausalLM.from_pretrained(str(g.parent), gguf_file=g.name, dtype=torch.float32)
    quant = json.loads((Path(args.model_dir) / "mlc-chat-config.json").read_text())["quantization"]
    report = verify_model(Path(args.model_dir), model, tok, quant)
    print(json.dumps(report["summary"], indent=2))
    return 0 if report["summary"]["passed"] else 1


if __name__ == "__main__":
    sys.exit(main())
