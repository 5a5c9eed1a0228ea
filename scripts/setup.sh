#!/usr/bin/env bash
# Installs what cclabel needs on a fresh Debian/Ubuntu machine, skipping what is already there.
#   scripts/setup.sh          build dependencies (compiler, CMake, libpng, libtiff, CLI11)
#   scripts/setup.sh --test   also GoogleTest, Google Benchmark, clang (fuzzing), the Python peers and
#                             the documentation tools (Doxygen, Sphinx, MyST, Breathe)
set -euo pipefail

want_test=0
[[ "${1:-}" == "--test" ]] && want_test=1

pkgs=(build-essential cmake libpng-dev libtiff-dev libcli11-dev pkg-config libpoppler-cpp-dev)
((want_test)) && pkgs+=(libgtest-dev libbenchmark-dev clang libclang-rt-dev python3-pip poppler-utils doxygen)

missing=()
for p in "${pkgs[@]}"; do
  dpkg -s "$p" >/dev/null 2>&1 || missing+=("$p")
done
if ((${#missing[@]})); then
  echo "setup: installing ${missing[*]}"
  SUDO=""
  [[ $(id -u) -ne 0 ]] && SUDO="sudo"
  export DEBIAN_FRONTEND=noninteractive
  $SUDO apt-get update -qq
  $SUDO apt-get install -y -qq --no-install-recommends "${missing[@]}" >/dev/null
fi

if ((want_test)); then
  py_missing=()
  python3 -c "import numpy" 2>/dev/null || py_missing+=(numpy)
  python3 -c "import cc3d" 2>/dev/null || py_missing+=(connected-components-3d)
  python3 -c "import cv2" 2>/dev/null || py_missing+=(opencv-python-headless)
  python3 -c "import skimage" 2>/dev/null || py_missing+=(scikit-image)
  python3 -c "import pytest" 2>/dev/null || py_missing+=(pytest)
  python3 -c "import tifffile" 2>/dev/null || py_missing+=(tifffile)
  # One pair that fits together (left to itself, pip once paired dask 2026.11 with distributed 2021.4,
  # which does not import); the same versions bench/fetch_wheels.sh carries to the GPU machine.
  python3 -c "import dask.array, distributed" 2>/dev/null || py_missing+=("dask[array]==2026.8.0" "distributed==2026.8.0")
  # What `pip install .` needs to build the Python package without build isolation.
  python3 -c "import scikit_build_core" 2>/dev/null || py_missing+=(scikit-build-core)
  python3 -c "import nanobind" 2>/dev/null || py_missing+=(nanobind)
  # The documentation site (scripts/docs.sh, test.sh's docs stage).
  python3 -c "import sphinx" 2>/dev/null || py_missing+=(sphinx)
  python3 -c "import myst_parser" 2>/dev/null || py_missing+=(myst-parser)
  python3 -c "import breathe" 2>/dev/null || py_missing+=(breathe)
  if ((${#py_missing[@]})); then
    echo "setup: pip installing ${py_missing[*]}"
    python3 -m pip install -q "${py_missing[@]}" 2>/dev/null ||
      python3 -m pip install -q --break-system-packages "${py_missing[@]}"
  fi
fi
