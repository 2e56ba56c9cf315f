"""Unit tests of the MLC q4 packing and ndarray-cache format (numpy only).

    .tmp/venv-models/bin/python -m unittest discover -s tools/models -p 'test_*.py' -v
    (or: npm run models:test)
"""

from __future__ import annotations

import json
import sys
import tempfile
import unittest
from pathlib import Path

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parent))
from mlc_format import (  # noqa: E402
    FormatError,
    iter_ndarray_cache,
    pack_q4,
    quantize_q4,
    quantize_q4_values,
    read_library_spec,
    write_ndarray_cache,
)
from prepare import PrepareError, build_plan, check_against_library, render_conv, QWEN2_CONV_TEMPLATE  # noqa: E402
from mlc_format import LibrarySpec, ParamSpec  # noqa: E402
from verify_mlc import MLCWeights, ReferenceWeights, dequantize, qwen2_logits, unpack_q4  # noqa: E402

LIBS = Path(__file__).resolve().parents[3] / "shared" / "models" / "webllm-libs-v0_2_48"


class PackingTest(unittest.TestCase):
    def test_bit_layout_element_r_at_bits_4r(self):
        packed = pack_q4(np.array([[0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15]], dtype=np.uint8))
        self.assertEqual(packed.dtype, np.uint32)
        self.assertEqual(packed.tolist(), [[0x76543210, 0xFEDCBA98]])

    def test_pack_unpack_round_trip_exact(self):
        rng = np.random.default_rng(0)
        for shape in [(1, 8), (3, 32), (64, 896), (7, 4864)]:
            values = rng.integers(0, 16, size=shape, dtype=np.uint8)
            back = unpack_q4(pack_q4(values))
            self.assertTrue(np.array_equal(back, values), shape)

    def test_quantize_pack_unpack_equals_quantized_values(self):
        rng = np.random.default_rng(1)
        w = rng.normal(0, 0.05, size=(96, 256)).astype(np.float32)
        for quant in ("q4f32_1", "q4f16_1"):
            values, scale = quantize_q4_values(w, quant)
            q_weight, q_scale = quantize_q4(w, quant, rows_per_chunk=40)  # chunking must not matter
            self.assertTrue(np.array_equal(unpack_q4(q_weight), values), quant)
            self.assertTrue(np.array_equal(q_scale, scale), quant)
            self.assertEqual(q_weight.shape, (96, 32))
            self.assertEqual(q_scale.shape, (96, 8))
            self.assertEqual(q_scale.dtype, np.float16 if quant == "q4f16_1" else np.float32)
            self.assertLessEqual(int(values.max()), 14)

    def test_quantization_rule_and_error_bound(self):
        rng = np.random.default_rng(2)
        w = rng.normal(0, 0.02, size=(32, 128)).astype(np.float32)
        q_weight, q_scale = quantize_q4(w, "q4f32_1")
        groups = w.reshape(32, 4, 32)
        np.testing.assert_array_equal(q_scale, np.abs(groups).max(-1) / np.float32(7))
        deq = dequantize(q_weight, q_scale)
        step = np.repeat(q_scale, 32, axis=1)
        self.assertTrue(np.all(np.abs(deq - w) <= step * 0.5 * (1 + 1e-6)))
        # The largest |w| of each group lands exactly on +-7 steps.
        vals = unpack_q4(q_weight).reshape(32, 4, 32).astype(int) - 7
        self.assertTrue(np.all(np.abs(vals).max(-1) == 7))

    def test_hand_computed_group(self):
        w = np.zeros((1, 32), dtype=np.float32)
        w[0, :4] = [0.7, -0.7, 0.05, 0.26]  # scale 0.1 -> codes 14, 0, 8 (7.5 rounds up to the even 8), 10
        values, scale = quantize_q4_values(w, "q4f32_1")
        self.assertAlmostEqual(float(scale[0, 0]), 0.1, places=7)
        self.assertEqual(values[0, :4].tolist(), [14, 0, 8, 10])
        self.assertTrue(np.all(values[0, 4:] == 7))

    def test_zero_group_dequantizes_to_zero(self):
        w = np.zeros((2, 64), dtype=np.float32)
        w[1, 32:] = 1.0
        for quant in ("q4f32_1", "q4f16_1"):
            q_weight, q_scale = quantize_q4(w, quant)
            deq = dequantize(q_weight, q_scale).astype(np.float32)
            self.assertTrue(np.all(np.isfinite(deq)))
            np.testing.assert_allclose(deq, w, atol=1e-3)

    def test_rejects_bad_shapes(self):
        with self.assertRaises(FormatError):
            quantize_q4(np.zeros((2, 40), dtype=np.float32), "q4f32_1")
        with self.assertRaises(FormatError):
            quantize_q4(np.zeros((2, 32), dtype=np.float32), "q3f16_0")


class NDArrayCacheTest(unittest.TestCase):
    def test_write_read_round_trip_and_sharding(self):
        rng = np.random.default_rng(3)
        tensors = [
            ("a.q_weight", rng.integers(0, 2**32, size=(10, 4), dtype=np.uint32)),  # 160 B
            ("a.q_scale", rng.normal(size=(10, 1)).astype(np.float16)),  # 20 B
            ("big", rng.normal(size=(100,)).astype(np.float32)),  # 400 B > limit: own shard
            ("c", rng.normal(size=(5,)).astype(np.float32)),
        ]
        with tempfile.TemporaryDirectory() as tmp:
            d = Path(tmp)
            (d / "params_shard_9.bin").write_bytes(b"stale")
            cache = write_ndarray_cache(d, iter(tensors), max_shard_bytes=256, metadata={"x": 1})
            self.assertFalse((d / "params_shard_9.bin").exists())
            self.assertEqual([len(s["records"]) for s in cache["records"]], [2, 1, 1])
            on_disk = json.loads((d / "ndarray-cache.json").read_text())
            self.assertEqual(on_disk, cache)
            self.assertEqual(on_disk["metadata"]["ParamSize"], 4)
            rec = on_disk["records"][0]
            self.assertEqual(rec["format"], "raw-shard")
            self.assertEqual(rec["records"][1]["byteOffset"], 160)
            self.assertEqual(rec["records"][1]["dtype"], "float16")
            back = dict(iter_ndarray_cache(d))
            for name, arr in tensors:
                self.assertEqual(back[name].dtype, arr.dtype)
                self.assertTrue(np.array_equal(back[name], arr), name)


class LibrarySpecTest(unittest.TestCase):
    def test_synthetic_library(self):
        meta = {"model_type": "qwen2", "quantization": "q4f32_1", "context_window_size": 4096, "sliding_window_size": -1,
                "attention_sink_size": -1, "prefill_chunk_size": 1024, "tensor_parallel_shards": 1, "max_batch_size": 80,
                "params": [{"name": "x.q_weight", "shape": [4, 1], "dtype": "uint32", "preprocs": []}]}
        with tempfile.TemporaryDirectory() as tmp:
            p = Path(tmp) / "lib.wasm"
            p.write_bytes(b"\x00asm\x01junk" + json.dumps(meta).encode() + b"\x00more")
            spec = read_library_spec(p)
            self.assertEqual(spec.params[0].shape, (4, 1))
            self.assertEqual(spec.prefill_chunk_size, 1024)
            p.write_bytes(b"\x00asm no metadata")
            with self.assertRaises(FormatError):
                read_library_spec(p)

    @unittest.skipUnless(LIBS.is_dir(), "prebuilt libraries not present")
    def test_real_libraries(self):
        expected = {"Qwen2-0.5B": (267, [151936, 112]), "Qwen2-1.5B": (311, [151936, 192])}
        for lib in sorted(LIBS.glob("*.wasm")):
            spec = read_library_spec(lib)
            n, emb = next(v for k, v in expected.items() if lib.name.startswith(k))
            self.assertEqual(len(spec.params), n, lib.name)
            self.assertEqual(list(spec.params[0].shape), emb)
            self.assertNotIn("lm_head.q_weight", spec.by_name())


class TinyCfg:
    hidden_size, intermediate_size, num_hidden_layers = 64, 96, 2
    num_attention_heads, num_key_value_heads, head_dim = 4, 2, 16
    vocab_size, rms_norm_eps, rope_theta, hidden_act = 40, 1e-6, 10000.0, "silu"


def tiny_weights(seed: int = 4) -> dict:
    c, rng = TinyCfg, np.random.default_rng(seed)
    r = lambda *shape: rng.normal(0, 0.1, size=shape).astype(np.float32)  # noqa: E731
    sd = {"model.embed_tokens.weight": r(c.vocab_size, c.hidden_size), "model.norm.weight": 1 + r(c.hidden_size)}
    kv = c.num_key_value_heads * c.head_dim
    for i in range(c.num_hidden_layers):
        p = f"model.layers.{i}"
        sd.update({
            f"{p}.self_attn.q_proj.weight": r(c.hidden_size, c.hidden_size), f"{p}.self_attn.q_proj.bias": r(c.hidden_size),
            f"{p}.self_attn.k_proj.weight": r(kv, c.hidden_size), f"{p}.self_attn.k_proj.bias": r(kv),
            f"{p}.self_attn.v_proj.weight": r(kv, c.hidden_size), f"{p}.self_attn.v_proj.bias": r(kv),
            f"{p}.self_attn.o_proj.weight": r(c.hidden_size, c.hidden_size),
            f"{p}.mlp.gate_proj.weight": r(c.intermediate_size, c.hidden_size),
            f"{p}.mlp.up_proj.weight": r(c.intermediate_size, c.hidden_size),
            f"{p}.mlp.down_proj.weight": r(c.hidden_size, c.intermediate_size),
            f"{p}.input_layernorm.weight": 1 + r(c.hidden_size), f"{p}.post_attention_layernorm.weight": 1 + r(c.hidden_size),
        })
    return sd


def tiny_spec(plan, quant: str) -> LibrarySpec:
    c = TinyCfg
    return LibrarySpec(path=Path("tiny.wasm"), model_type="qwen2", quantization=quant, context_window_size=64,
                       sliding_window_size=-1, attention_sink_size=-1, prefill_chunk_size=64, tensor_parallel_shards=1,
                       max_batch_size=1, kv_cache={"num_hidden_layers": c.num_hidden_layers, "num_attention_heads": c.num_attention_heads,
                                                   "num_key_value_heads": c.num_key_value_heads, "head_dim": c.head_dim},
                       params=tuple(ParamSpec(p.name, p.shape, p.dtype) for p in reversed(plan)), raw={})


class ConverterTest(unittest.TestCase):
    def test_plan_names_and_library_mismatch_message(self):
        sd = tiny_weights()
        plan = build_plan(sd, TinyCfg, "q4f32_1", sd["model.embed_tokens.weight"])
        names = [p.name for p in plan]
        self.assertIn("model.layers.1.self_attn.c_attn.bias", names)
        self.assertIn("model.layers.0.mlp.gate_up_proj.q_weight", names)
        self.assertNotIn("lm_head.q_weight", names)
        spec = tiny_spec(plan, "q4f32_1")
        ordered = check_against_library(plan, spec, TinyCfg)
        self.assertEqual([p.name for p in ordered], [p.name for p in spec.params])  # library order wins
        bad = LibrarySpec(**{**spec.__dict__, "params": spec.params[:-1] + (ParamSpec(spec.params[-1].name, (1, 2), "float32"),)})
        with self.assertRaises(PrepareError) as ctx:
            check_against_library(plan, bad, TinyCfg)
        self.assertIn("does not match the parameter list", str(ctx.exception))
        self.assertIn(spec.params[-1].name, str(ctx.exception))

    def test_tiny_model_written_read_and_run(self):
        """Convert a random tiny Qwen2, read it back as the verifier does, compare logits."""
        sd = tiny_weights()
        cfg = {k: getattr(TinyCfg, k) for k in ("num_attention_heads", "num_key_value_heads", "head_dim", "rms_norm_eps",
                                                 "rope_theta", "num_hidden_layers")}
        for quant in ("q4f32_1", "q4f16_1"):
            plan = build_plan(sd, TinyCfg, quant, sd["model.embed_tokens.weight"])
            with tempfile.TemporaryDirectory() as tmp:
                d = Path(tmp)
                write_ndarray_cache(d, ((p.name, p.make()) for p in plan), 4096, {})
                (d / "mlc-chat-config.json").write_text(json.dumps({"model_config": cfg}))
                mlc = MLCWeights(d)
                # q, k, v stacked in that order on the output axis, within half a step.
                qkv = mlc.get("model.layers.0.self_attn.c_attn")
                step = np.repeat(mlc.scale("model.layers.0.self_attn.c_attn").astype(np.float32), 32, axis=1)
                ref = np.concatenate([sd[f"model.layers.0.self_attn.{x}_proj.weight"] for x in "qkv"])
                self.assertTrue(np.all(np.abs(qkv.astype(np.float32) - ref) <= step * 0.52), quant)
                emb = sd["model.embed_tokens.weight"]
                ids = [[1, 5, 7, 3, 9, 2]]
                exact = qwen2_logits(ReferenceWeights(sd, emb, emb), cfg, ids)[0]
                conv = qwen2_logits(mlc, cfg, ids)[0]
                # Smoke test only: random weights give a residual-dominated toy model, so
                # layout mistakes are caught by the element bound above, not by this cosine.
                cosine = float((exact * conv).sum() / (exact.norm() * conv.norm()))
                self.assertGreater(cosine, 0.9, quant)

    def test_conv_template_renders_chatml(self):
        got = render_conv(QWEN2_CONV_TEMPLATE, "S", [("user", "Q")])
        self.assertEqual(got, "<|im_start|>system\nS<|im_end|>\n<|im_start|>user\nQ<|im_end|>\n<|im_start|>assistant\n")


if __name__ == "__main__":
    unittest.main()
