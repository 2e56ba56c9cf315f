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
from verify_mlc import dequantize, unpack_q4  # noqa: E402

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


if __name__ == "__main__":
    unittest.main()
