#!/usr/bin/env bash
# Downloads the peers that the GPU machine's image lacks (it reaches no package index) as CPython 3.12
# manylinux x86-64 wheels into .device/whl (git-ignored), to be carried there; bench/gpu_peers.sh
# installs them. The image already has CuPy, PyTorch, OpenCV, scikit-image, SciPy and NumPy.
#   cc3d     connected-components-3d (needs only NumPy; fastremap only for its "stack" extra)
#   colorcc  pure Python; compiles its kernels at the first call through CuPy's NVRTC
#   dask, distributed and the dependencies the image lacks (partd, locket, tblib, tornado, zict):
#            tests/python/test_dask.py::test_cupy_chunks there
#   dask-image, slicerator and pims (pims is a source package: built into a wheel here; pure Python):
#            bench/dask_bench.py's dask-image rows there
#   cucim    the CUDA 13 flavour, cucim-cu13; of its requirements click and lazy_loader may be
#            missing there (scikit-image, SciPy, CuPy, NumPy are in the image; nvidia-nvimgcodec
#            is for image files only, which cucim.skimage.measure does not need)
set -euo pipefail
cd "$(dirname "$0")/.."
dest=.device/whl
mkdir -p "$dest"
pip download --only-binary=:all: --python-version 3.12 \
  --platform manylinux2014_x86_64 --platform manylinux_2_24_x86_64 --platform manylinux_2_27_x86_64 \
  --platform manylinux_2_28_x86_64 --no-deps -d "$dest" \
  connected-components-3d colorcc cucim-cu13 click lazy_loader \
  dask==2026.8.0 distributed==2026.8.0 partd locket tblib tornado zict dask-image slicerator
pip wheel --no-deps -q -w "$dest" pims
ls -l "$dest"
du -sh "$dest"
