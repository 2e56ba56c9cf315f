"""Tests of tools/models/trim_vocab.py on a toy BPE tokenizer of Gemma's layout (space marker,
byte fallback, special tokens, template post-processor) and a toy ONNX embedding graph.

Run: .tmp/venv-models/bin/python -m unittest tools/models/test_trim_vocab.py (CI: .ci/run).
"""

from __future__ import annotations

import json
import sys
import tempfile
import unittest
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))

import trim_vocab  # noqa: E402

S = trim_vocab.SPACE


def toy_tokenizer() -> tuple[dict, dict]:
    specials = ["<pad>", "<eos>", "<bos>", "<unk>", "<unused0>"]
    pieces = specials + [f"<0x{b:02X}>" for b in range(256)] + list("abcdefghijklmnopqrstuvwxyz") + [S, "\u4e2d"]
    merges = [("a", "b"), ("ab", "c"), (S, "abc"), ("d", "e"), (S, "de"), ("f", "g"), ("fg", "h"), (S, "fgh"), ("x", "y"), (S, "xy")]
    for a, b in merges:
        pieces.append(a + b)
    vocab = {p: i for i, p in enumerate(pieces)}
    tok = {
        "version": "1.0",
        "truncation": None,
        "padding": None,
        "added_tokens": [
            {"id": i, "content": p, "single_word": False, "lstrip": False, "rstrip": False, "normalized": False, "special": p != "<unused0>"}
            for i, p in enumerate(specials)
        ],
        "normalizer": {"type": "Replace", "pattern": {"String": " "}, "content": S},
        "pre_tokenizer": {"type": "Split", "pattern": {"String": " "}, "behavior": "MergedWithPrevious", "invert": False},
        "post_processor": {
            "type": "TemplateProcessing",
            "single": [{"SpecialToken": {"id": "<bos>", "type_id": 0}}, {"Sequence": {"id": "A", "type_id": 0}}],
            "pair": [{"SpecialToken": {"id": "<bos>", "type_id": 0}}, {"Sequence": {"id": "A", "type_id": 0}}, {"Sequence": {"id": "B", "type_id": 1}}],
            "special_tokens": {"<bos>": {"id": "<bos>", "ids": [2], "tokens": ["<bos>"]}},
        },
        "decoder": {"type": "Sequence", "decoders": [{"type": "Replace", "pattern": {"String": S}, "content": " "}, {"type": "ByteFallback"}, {"type": "Fuse"}]},
        "model": {
            "type": "BPE",
            "dropout": None,
            "unk_token": "<unk>",
            "continuing_subword_prefix": None,
            "end_of_word_suffix": None,
            "fuse_unk": True,
            "byte_fallback": True,
            "ignore_merges": False,
            "vocab": vocab,
            "merges": [list(m) for m in merges],
        },
    }
    config = {
        "bos_token": "<bos>",
        "eos_token": "<eos>",
        "pad_token": "<pad>",
        "unk_token": "<unk>",
        "added_tokens_decoder": {str(i): {"content": p, "special": True} for i, p in enumerate(specials)},
    }
    return tok, config


def fast(tok_json: dict):
    from tokenizers import Tokenizer
    from transformers import PreTrainedTokenizerFast

    return PreTrainedTokenizerFast(tokenizer_object=Tokenizer.from_str(json.dumps(tok_json)))


class TrimVocabTest(unittest.TestCase):
    def setUp(self) -> None:
        self.tok, self.config = toy_tokenizer()
        self.full = fast(self.tok)
        self.texts = ["abc de", "de abc"]

    def trimmed(self):
        keep = trim_vocab.keep_set(self.tok, self.texts, self.full)
        new_json, new_config, order = trim_vocab.trim_tokenizer(self.tok, self.config, keep)
        return keep, new_json, new_config, order, fast(new_json)

    def test_keeps_the_texts_tokens_and_every_merge_part_that_builds_them(self):
        keep, *_ = self.trimmed()
        v = self.tok["model"]["vocab"]
        for piece in (S + "abc", "abc", "ab", S + "de", "de"):
            self.assertIn(v[piece], keep, piece)
        self.assertNotIn(v[S + "fgh"], keep)
        self.assertNotIn(v["fgh"], keep)
        self.assertNotIn(v["<unused0>"], keep)
        self.assertIn(v["<0x41>"], keep)
        self.assertIn(v["q"], keep)  # ASCII letters are kept whatever the texts hold

    def test_kept_texts_tokenize_the_same_renumbered(self):
        _, _, _, order, trimmed = self.trimmed()
        check = trim_vocab.verify(self.full, trimmed, order, self.texts + ["abc abc de", "a b c"])
        self.assertEqual(check["tokenized_differently"], 0)
        self.assertEqual(check["all_tokens_kept"], 4)

    def test_a_word_outside_the_kept_set_falls_back_to_kept_pieces_or_bytes_never_unk(self):
        _, new_json, _, order, trimmed = self.trimmed()
        inv = {i: p for p, i in new_json["model"]["vocab"].items()}
        for text in (" fgh", "\u4e2d"):
            ids = trimmed(text, add_special_tokens=False)["input_ids"]
            pieces = [inv[i] for i in ids]
            self.assertNotIn("<unk>", pieces, text)
            self.assertEqual(trimmed.decode(ids), text)
        self.assertEqual([inv[i] for i in trimmed("\u4e2d", add_special_tokens=False)["input_ids"]], ["<0xE4>", "<0xB8>", "<0xAD>"])

    def test_special_tokens_and_the_post_processor_follow_the_new_numbering(self):
        _, new_json, new_config, order, trimmed = self.trimmed()
        bos = new_json["model"]["vocab"]["<bos>"]
        self.assertEqual(new_json["post_processor"]["special_tokens"]["<bos>"]["ids"], [bos])
        self.assertEqual(trimmed("abc")["input_ids"][0], bos)
        self.assertEqual({v["content"] for v in new_config["added_tokens_decoder"].values()}, {"<pad>", "<eos>", "<bos>", "<unk>"})
        self.assertEqual(order, sorted(order))

    def test_the_embedding_table_keeps_the_rows_of_the_kept_tokens_in_the_new_order(self):
        import numpy as np
        import onnx
        import onnxruntime as ort
        from onnx import TensorProto, helper, numpy_helper

        _, new_json, _, order, trimmed = self.trimmed()
        n = len(self.tok["model"]["vocab"])
        table = np.arange(n * 4, dtype=np.float32).reshape(n, 4)
        graph = helper.make_graph(
            [helper.make_node("Gather", ["table", "input_ids"], ["out"])],
            "toy",
            [helper.make_tensor_value_info("input_ids", TensorProto.INT64, [None])],
            [helper.make_tensor_value_info("out", TensorProto.FLOAT, [None, 4])],
            [numpy_helper.from_array(table, "table")],
        )
        with tempfile.TemporaryDirectory() as d:
            src, dst = Path(d) / "full.onnx", Path(d) / "trim.onnx"
            onnx.save(helper.make_model(graph, opset_imports=[helper.make_opsetid("", 13)], ir_version=8), str(src))
            self.assertEqual(trim_vocab.trim_onnx(src, dst, order, n), "table")
            run = lambda p, ids: ort.InferenceSession(str(p), providers=["CPUExecutionProvider"]).run(["out"], {"input_ids": np.asarray(ids, dtype=np.int64)})[0]
            old_ids = self.full("abc de")["input_ids"]
            new_ids = trimmed("abc de")["input_ids"]
            np.testing.assert_array_equal(run(src, old_ids), run(dst, new_ids))
            with self.assertRaises(ValueError):
                trim_vocab.trim_onnx(src, dst, order, n + 1)


if __name__ == "__main__":
    unittest.main()
