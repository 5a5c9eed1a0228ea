#!/usr/bin/env bash
# Builds the documentation site (docs/) into build/docs with Sphinx, warnings as errors, installing
# what it needs on a fresh Debian/Ubuntu machine and skipping what is already there:
#   pip: sphinx, myst-parser (Markdown pages), breathe (the C++ reference from Doxygen's XML)
#   apt: doxygen
# The Python reference is generated from the docstrings of the *installed* package, so `cclabel`
# must be importable with the PYTHONPATH given (test.sh installs it into build/python-site):
#   PYTHONPATH=build/python-site scripts/docs.sh
# With CCLABEL_CLI set to the built tool, the CLI page also shows `cclabel label --help` verbatim.
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
cd "$root"

if ! command -v doxygen >/dev/null; then
  echo "docs: installing doxygen"
  SUDO=""
  [[ $(id -u) -ne 0 ]] && SUDO="sudo"
  export DEBIAN_FRONTEND=noninteractive
  $SUDO apt-get update -qq
  $SUDO apt-get install -y -qq --no-install-recommends doxygen >/dev/null
fi
py_missing=()
python3 -c "import sphinx" 2>/dev/null || py_missing+=(sphinx)
python3 -c "import myst_parser" 2>/dev/null || py_missing+=(myst-parser)
python3 -c "import breathe" 2>/dev/null || py_missing+=(breathe)
if ((${#py_missing[@]})); then
  echo "docs: pip installing ${py_missing[*]}"
  python3 -m pip install -q "${py_missing[@]}" 2>/dev/null ||
    python3 -m pip install -q --break-system-packages "${py_missing[@]}"
fi

if ! where=$(python3 -c "import cclabel; print(cclabel.__file__)" 2>&1); then
  echo "$where" | tail -n 1 >&2
  echo "docs: cannot import cclabel (PYTHONPATH='${PYTHONPATH:-}'): the Python reference is made from" \
    "the installed package; install it first, e.g. into build/python-site, and pass PYTHONPATH" >&2
  exit 1
fi
echo "docs: cclabel from $where"

rm -rf build/docs build/docs-doxygen
mkdir -p build/docs-doxygen
# The C++ reference: Doxygen reads the public headers (docs/Doxyfile) and breathe renders its XML.
# Doxygen's own warnings fail the build as Sphinx's do (WARN_AS_ERROR in the Doxyfile).
(cd docs && doxygen Doxyfile)
python3 -m sphinx -b html -W --keep-going -q docs build/docs
echo "docs: built build/docs/index.html"
