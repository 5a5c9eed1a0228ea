#!/usr/bin/env bash
# Issue 26, item 1 at the small end: the segment pipeline against the pixel pipeline on pictures of
# 0.26 to 16.8 Mpx already on the GPU (bench_pipelines: median of REPS calls, labels compared), where
# the twelfth session's run found the pixel pipeline faster (a fixed cost of fewer launches).
#   B=<CUDA build with bench_pipelines and cclabel_gen> bash scripts/gpu_small_pipelines.sh
set -eu -o pipefail
B=${B:?a CUDA build}
REPS=${REPS:-21}
d=$(mktemp -d)
python3 - "$d" <<'PY'
import sys
import numpy as np
d = sys.argv[1]
rng = np.random.default_rng(26)
for side in (512, 1024, 2048, 4096):
    for density in (0.1, 0.5):
        np.save(f"{d}/noise{side}_{density}.npy", rng.random((side, side)) < density)
    # blobs: 8 x 8 blocks on or off, as a segmentation mask
    small = rng.random((side // 8, side // 8)) < 0.4
    np.save(f"{d}/blocks{side}.npy", np.kron(small, np.ones((8, 8), bool)))
# a batch of 64 masks of 256^2
np.save(f"{d}/batch64x256.npy", rng.random((64, 256, 256)) < 0.3)
PY
for dpi in 25 50 100; do
  "$B/bench/cclabel_gen" drawing --dpi $dpi -o "$d/sheet$dpi.npy" >/dev/null
done
files=()
for f in "$d"/*.npy; do
  case "$f" in *sheet*) files+=("$f" "$f:bg") ;; *) files+=("$f") ;; esac
done
"$B/bench/cuda/bench_pipelines" --reps "$REPS" "${files[@]}"
rm -rf "$d"
