"""MLC / WebLLM weight format helpers (numpy only, no torch).

What is implemented here, and where the facts come from (read in mlc-llm's
python/mlc_llm/quantization/{group_quantization,utils}.py and
python/mlc_llm/model/qwen2/; nothing copied):

* The model library (.wasm) carries the parameter list it was compiled for as a
  JSON object starting with ``{"model_type"``; ``read_library_spec`` extracts it.
* Group quantization q4fXX_1: 4-bit, groups of 32 along the input (last) axis,
  symmetric. In the model dtype (float16 for q4f16_1, float32 for q4f32_1):
      scale = max|w| / 7
      q     = clip(round(w / scale + 7), 0, 14)
  and the runtime dequantizes ``(q - 7) * scale`` in the model dtype.
* Packing: eight 4-bit values per uint32 along the same axis, element ``r`` of a
  word at bits ``4 r`` (little end first). q_weight is [out, in/8] uint32,
  q_scale is [out, in/32] in the model dtype.
* ``ndarray-cache.json``: ``{"metadata": {...}, "records": [shard, ...]}``, each
  shard ``{"dataPath", "format": "raw-shard", "nbytes", "records": [{"name",
  "shape", "dtype", "format": "raw", "nbytes", "byteOffset"}]}``; tensors are raw
  little-endian C-order bytes.
"""

from __future__ import annotations

import hashlib
import json
import os
from dataclasses import dataclass
from pathlib import Path
from typing import Iterable, Iterator

import numpy as np

GROUP_SIZE = 32
ELEMS_PER_WORD = 8  # 32-bit storage / 4-bit values
MAX_INT = 7  # 2 ** (4 - 1) - 1

MODEL_DTYPE = {"q4f16_1": np.float16, "q4f32_1": np.float32}
DTYPE_NAMES = {"float16": np.float16, "float32": np.float32, "uint32": np.uint32}


class FormatError(Exception):
    """A problem with inputs or outputs of the MLC format (message is user-facing)."""


# --------------------------------------------------------------------------- library


@dataclass(frozen=True)
class ParamSpec:
    name: str
    shape: tuple[int, ...]
    dtype: str


@dataclass(frozen=True)
class LibrarySpec:
    path: Path
    model_type: str
    quantization: str
    context_window_size: int
    sliding_window_size: int
    attention_sink_size: int
    prefill_chunk_size: int
    tensor_parallel_shards: int
    max_batch_size: int
    kv_cache: dict
    params: tuple[ParamSpec, ...]
    raw: dict

    def by_name(self) -> dict[str, ParamSpec]:
        return {p.name: p for p in self.params}


def read_library_spec(wasm_path: Path) -> LibrarySpec:
    """Read the parameter list a compiled MLC model library expects."""
    data = Path(wasm_path).read_bytes()
    marker = b'{"model_type"'
    start = data.find(marker)
    if start < 0:
        raise FormatError(
            f"{wasm_path}: no embedded model metadata ({marker.decode()!r} not found). "
            "Is this an MLC model library (.wasm) built by mlc-llm?"
        )
    if data.find(marker, start + 1) >= 0:
        raise FormatError(f"{wasm_path}: more than one embedded metadata block; refusing to guess.")
    try:
        obj, _ = json.JSONDecoder().raw_decode(data[start:].decode("latin-1"))
    except json.JSONDecodeError as err:
        raise FormatError(f"{wasm_path}: embedded metadata is not valid JSON ({err}).") from err
    try:
        params = tuple(
            ParamSpec(p["name"], tuple(int(s) for s in p["shape"]), p["dtype"]) for p in obj["params"]
        )
        for p in obj["params"]:
            if p.get("preprocs"):
                raise FormatError(
                    f"{wasm_path}: parameter {p['name']} needs preprocessing {p['preprocs']}, "
                    "which this converter does not implement."
                )
        return LibrarySpec(
            path=Path(wasm_path),
            model_type=obj["model_type"],
            quantization=obj["quantization"],
            context_window_size=int(obj["context_window_size"]),
            sliding_window_size=int(obj["sliding_window_size"]),
            attention_sink_size=int(obj["attention_sink_size"]),
            prefill_chunk_size=int(obj["prefill_chunk_size"]),
            tensor_parallel_shards=int(obj["tensor_parallel_shards"]),
            max_batch_size=int(obj["max_batch_size"]),
            kv_cache=dict(obj.get("kv_cache", {})),
            params=params,
            raw={k: v for k, v in obj.items() if k != "params"},
        )
    except KeyError as err:
        raise FormatError(f"{wasm_path}: embedded metadata lacks field {err}.") from err


def library_has_float_literal(wasm_path: Path, value: float) -> bool:
    """True if the library's shader source contains ``value`` as a WGSL f32 literal.

    The compiled kernels bake model constants (RoPE theta, RMSNorm epsilon) into
    the WGSL text as ``%e``-formatted literals such as ``1.000000e+06f``.
    """
    literal = (f"{value:e}" + "f").encode()
    return literal in Path(wasm_path).read_bytes()


# --------------------------------------------------------------------------- q4 groups


def quantize_q4(weight: np.ndarray, quantization: str, rows_per_chunk: int = 8192) -> tuple[np.ndarray, np.ndarray]:
    """Group-quantize a 2-D weight [out, in] along ``in``. Returns (q_weight, q_scale)."""
    if quantization not in MODEL_DTYPE:
        raise FormatError(f"unsupported quantization {quantization!r} (supported: {sorted(MODEL_DTYPE)})")
    dt = MODEL_DTYPE[quantization]
    if weight.ndim != 2:
        raise FormatError(f"expected a 2-D weight, got shape {weight.shape}")
    rows, cols = weight.shape
    if cols % GROUP_SIZE:
        raise FormatError(f"input dimension {cols} is not a multiple of the group size {GROUP_SIZE}")
    q_weight = np.empty((rows, cols // ELEMS_PER_WORD), dtype=np.uint32)
    q_scale = np.empty((rows, cols // GROUP_SIZE), dtype=dt)
    for r0 in range(0, rows, rows_per_chunk):
        r1 = min(rows, r0 + rows_per_chunk)
        qv, sc = quantize_q4_values(weight[r0:r1], quantization)
        q_weight[r0:r1] = pack_q4(qv)
        q_scale[r0:r1] = sc
    return q_weight, q_scale


def quantize_q4_values(weight: np.ndarray, quantization: str) -> tuple[np.ndarray, np.ndarray]:
    """The unpacked quantized values (uint8 in 0..14, shape of ``weight``) and scales."""
    dt = MODEL_DTYPE[quantization]
    rows, cols = weight.shape
    groups = np.asarray(weight).astype(dt, copy=False).reshape(rows, cols // GROUP_SIZE, GROUP_SIZE)
    max_abs = np.abs(groups).max(axis=2)
    scale = (max_abs / dt(MAX_INT)).astype(dt)
    with np.errstate(divide="ignore", invalid="ignore", over="ignore"):
        x = (groups / scale[:, :, None]).astype(dt) + dt(MAX_INT)
    # All-zero groups have scale 0 (0/0 = NaN): any code dequantizes to 0; use the zero point.
    x = np.where(np.isfinite(x), x, dt(MAX_INT))
    # np.rint rounds half to even (IEEE default rounding mode).
    q = np.clip(np.rint(x), 0, 2 * MAX_INT).astype(np.uint8)
    return q.reshape(rows, cols), scale


def pack_q4(values: np.ndarray) -> np.ndarray:
    """Pack 4-bit values [rows, cols] into uint32 [rows, cols/8]; element r at bits 4r."""
    rows, cols = values.shape
    if cols % ELEMS_PER_WORD:
        raise FormatError(f"cannot pack {cols} values into whole 32-bit words")
    if values.size and int(values.max()) > 15:
        raise FormatError("value does not fit in 4 bits")
    v = values.astype(np.uint32).reshape(rows, cols // ELEMS_PER_WORD, ELEMS_PER_WORD)
    out = np.zeros((rows, cols // ELEMS_PER_WORD), dtype=np.uint32)
    for r in range(ELEMS_PER_WORD):
        out |= v[:, :, r] << np.uint32(4 * r)
    return out


# --------------------------------------------------------------------------- ndarray cache


def sha256_file(path: Path, bufsize: int = 8 << 20) -> str:
    h = hashlib.sha256()
    with open(path, "rb") as f:
        while chunk := f.read(bufsize):
            h.update(chunk)
    return h.hexdigest()


@dataclass
class ShardRecord:
    name: str
    shape: list[int]
    dtype: str
    nbytes: int
    byteOffset: int


def write_ndarray_cache(
    out_dir: Path,
    tensors: Iterable[tuple[str, np.ndarray]],
    max_shard_bytes: int,
    metadata: dict,
    on_shard=None,
) -> dict:
    """Write tensors into params_shard_N.bin files plus ndarray-cache.json.

    Tensors are written in the order given. A shard is closed before a tensor
    that would push it past ``max_shard_bytes``; a tensor larger than the limit
    gets a shard of its own. Files are written under temporary names and renamed.
    """
    out_dir.mkdir(parents=True, exist_ok=True)
    shards: list[dict] = []
    current: list[tuple[ShardRecord, np.ndarray]] = []
    current_bytes = 0

    def flush() -> None:
        nonlocal current, current_bytes
        if not current:
            return
        name = f"params_shard_{len(shards)}.bin"
        tmp = out_dir / (name + ".partial")
        with open(tmp, "wb") as f:
            for _, arr in current:
                f.write(np.ascontiguousarray(arr).tobytes())
        os.replace(tmp, out_dir / name)
        shards.append(
            {
                "dataPath": name,
                "format": "raw-shard",
                "nbytes": current_bytes,
                "records": [
                    {
                        "name": rec.name,
                        "shape": rec.shape,
                        "dtype": rec.dtype,
                        "format": "raw",
                        "nbytes": rec.nbytes,
                        "byteOffset": rec.byteOffset,
                    }
                    for rec, _ in current
                ],
            }
        )
        if on_shard:
            on_shard(name, current_bytes)
        current, current_bytes = [], 0

    for name, arr in tensors:
        dtype_name = {np.dtype(np.float16): "float16", np.dtype(np.float32): "float32", np.dtype(np.uint32): "uint32"}.get(arr.dtype)
        if dtype_name is None:
            raise FormatError(f"{name}: unsupported dtype {arr.dtype}")
        arr = arr.astype(arr.dtype.newbyteorder("<"), copy=False)
        nbytes = int(arr.nbytes)
        if current and current_bytes + nbytes > max_shard_bytes:
            flush()
        current.append((ShardRecord(name, [int(s) for s in arr.shape], dtype_name, nbytes, current_bytes), arr))
        current_bytes += nbytes
    flush()

    # Remove stale shards from an earlier run with more shards.
    keep = {s["dataPath"] for s in shards}
    for old in out_dir.glob("params_shard_*.bin"):
        if old.name not in keep:
            old.unlink()
    total_params = sum(len(s["records"]) for s in shards)
    total_bytes = sum(s["nbytes"] for s in shards)
    cache = {
        "metadata": {**metadata, "ParamSize": total_params, "ParamBytes": total_bytes},
        "records": shards,
    }
    tmp = out_dir / "ndarray-cache.json.partial"
    tmp.write_text(json.dumps(cache, indent=1) + "\n")
    os.replace(tmp, out_dir / "ndarray-cache.json")
    return cache


def iter_ndarray_cache(model_dir: Path) -> Iterator[tuple[str, np.ndarray]]:
    """Read every tensor named in ``model_dir/ndarray-cache.json`` (memory-mapped shards)."""
    cache = json.loads((model_dir / "ndarray-cache.json").read_text())
    for shard in cache["records"]:
        path = model_dir / shard["dataPath"]
        if path.stat().st_size != shard["nbytes"]:
            raise FormatError(f"{path}: size {path.stat().st_size} != {shard['nbytes']} in ndarray-cache.json")
        buf = np.memmap(path, dtype=np.uint8, mode="r")
        for rec in shard["records"]:
            dt = np.dtype(DTYPE_NAMES[rec["dtype"]]).newbyteorder("<")
            raw = buf[rec["byteOffset"] : rec["byteOffset"] + rec["nbytes"]]
            yield rec["name"], np.frombuffer(raw, dtype=dt).reshape(rec["shape"])
