#!/usr/bin/env bash
# Entry point of `npm run models:prepare -- [options]`: creates (or reuses) the
# pinned Python venv, then runs tools/models/prepare.py with the same options.
# `npm run models:prepare -- --help` lists them; docs/models.md explains them.
#
# Env: VENV (default .tmp/venv-models), PYTHON (default python3, 3.10+),
#      MODELS_THREADS (torch/BLAS threads, default 2).
set -euo pipefail

ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)"
VENV="${VENV:-$ROOT/.tmp/venv-models}"
PYTHON="${PYTHON:-python3}"
REQ="$ROOT/tools/models/requirements.txt"
THREADS="${MODELS_THREADS:-2}"

if ! command -v "$PYTHON" >/dev/null 2>&1; then
  echo "models:prepare: '$PYTHON' not found. Install Python 3.10+ or set PYTHON=/path/to/python3." >&2
  exit 2
fi

# Reinstall only when requirements.txt changed since the last successful install.
STAMP="$VENV/.requirements.sha256"
want="$(sha256sum "$REQ" | cut -d' ' -f1)"
if [ ! -x "$VENV/bin/python" ] || [ "$(cat "$STAMP" 2>/dev/null)" != "$want" ]; then
  echo "models:prepare: setting up the Python environment in $VENV (pinned: tools/models/requirements.txt)"
  if [ ! -x "$VENV/bin/python" ]; then
    "$PYTHON" -m venv "$VENV" || {
      echo "models:prepare: could not create a venv. On Debian: apt-get install -y python3-venv" >&2
      exit 2
    }
  fi
  if ! "$VENV/bin/pip" install --quiet --disable-pip-version-check -r "$REQ"; then
    echo "models:prepare: pip could not install tools/models/requirements.txt (see the pip output above)." >&2
    echo "  Needs PyPI (or a mirror) and, for torch, a CPU wheel: torch==2.13.0 from a find-links folder" >&2
    echo "  or 'pip install torch==2.13.0 --index-url <pytorch CPU index>' into $VENV first." >&2
    exit 2
  fi
  "$VENV/bin/python" - <<'EOF'
import sys, torch
if torch.version.cuda:
    sys.exit(f"models:prepare: torch {torch.__version__} is a CUDA build; install the CPU wheel (torch==2.13.0+cpu).")
EOF
  echo "$want" >"$STAMP"
fi

export OMP_NUM_THREADS="$THREADS" MKL_NUM_THREADS="$THREADS" OPENBLAS_NUM_THREADS="$THREADS" MODELS_THREADS="$THREADS"
export HF_HUB_OFFLINE=1 TRANSFORMERS_OFFLINE=1 HF_HUB_DISABLE_TELEMETRY=1 PYTHONUNBUFFERED=1
export MODELS_PYTHON="$VENV/bin/python"
if [ "${1:-}" = "--self-test" ]; then
  # Unit tests of the packing and file format (npm run models:test).
  exec "$VENV/bin/python" -m unittest discover -s "$ROOT/tools/models" -p 'test_*.py' -v
fi
if [ "${1:-}" = "--embedder" ]; then
  # EmbeddingGemma-300m for the optional retrieval model (tools/models/prepare_embedder.py).
  shift
  exec "$VENV/bin/python" "$ROOT/tools/models/prepare_embedder.py" "$@"
fi
exec "$VENV/bin/python" "$ROOT/tools/models/prepare.py" "$@"
