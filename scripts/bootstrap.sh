#!/usr/bin/env bash
# Create .venv and install legalnav with everything its tests need. Safe to run repeatedly:
# it reinstalls only when pyproject.toml changed.
set -euo pipefail
cd "$(dirname "$0")/.."

PY=${PYTHON:-}
if [ -z "$PY" ]; then
  for candidate in python3.11 python3.12 python3; do
    if command -v "$candidate" >/dev/null 2>&1 && "$candidate" -c 'import sys; sys.exit(sys.version_info < (3, 11))'; then
      PY=$candidate
      break
    fi
  done
fi
if [ -z "$PY" ]; then
  echo "legalnav needs Python 3.11 or newer (set PYTHON=/path/to/python3.11)." >&2
  exit 1
fi

# OCR of scans and images needs Tesseract with its English model (Debian: tesseract-ocr, which
# brings tesseract-ocr-eng and tesseract-ocr-osd). Installed here on Debian as root; elsewhere
# install it yourself, or scans fail with a message saying OCR is not available.
if ! command -v tesseract >/dev/null 2>&1; then
  if command -v apt-get >/dev/null 2>&1 && [ "$(id -u)" = 0 ]; then
    DEBIAN_FRONTEND=noninteractive apt-get install -y -qq tesseract-ocr tesseract-ocr-eng >/dev/null 2>&1 \
      || { apt-get update -qq >/dev/null && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq tesseract-ocr tesseract-ocr-eng >/dev/null; } \
      || echo "tesseract-ocr could not be installed: scanned PDFs and images will not be read." >&2
  else
    echo "Tesseract is not installed (Debian: apt-get install tesseract-ocr): scans and images will not be read by OCR." >&2
  fi
fi

if [ ! -x .venv/bin/python ]; then
  "$PY" -m venv .venv
fi
stamp=".venv/.legalnav-$(sha256sum pyproject.toml | cut -c1-16)"
if [ -f "$stamp" ]; then
  exit 0
fi
.venv/bin/python -m pip install --quiet --upgrade pip
# torch first, and the CPU build: otherwise sentence-transformers pulls a CUDA build of several GB.
# A wheel already on this machine (pip's find-links) is used when there is one.
if ! .venv/bin/python -c 'import torch' >/dev/null 2>&1; then
  pytag=$(.venv/bin/python -c 'import sys; print(f"cp{sys.version_info.major}{sys.version_info.minor}")')
  wheel=$(ls "${TORCH_WHEELS:-/opt/wheels}"/torch-2.13.0+cpu-"$pytag"-*.whl 2>/dev/null | head -1 || true)
  if [ -n "$wheel" ]; then
    .venv/bin/python -m pip install --quiet "$wheel"
  else
    .venv/bin/python -m pip install --quiet "torch==2.13.0" --index-url "${TORCH_INDEX_URL:-https://download.pytorch.org/whl/cpu}"
  fi
fi
.venv/bin/python -m pip install --quiet -e '.[dev]'
rm -f .venv/.legalnav-*
touch "$stamp"
