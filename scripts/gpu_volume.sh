#!/usr/bin/env bash
# One device call for issue 27's GPU part (3-D volumes on the GPU): builds the GPU tests and
# bench_volume (-j8; googletest from .device/googletest), runs the VolumeCuda tests, the emulator's
# volume tests, compute-sanitizer memcheck on a few VolumeCuda tests, then bench_volume (512^3,
# every volume and connectivity, labels checked against the CPU's), while BUDGET seconds (default
# 540) last, then other tile shapes. With PY=1 and .device/whl (bench/fetch_wheels.sh, plus
# nanobind and scikit-build-core) it also pip-builds the Python package with CUDA beside the C++
# build, then runs tests/python/test_volume_gpu.py and bench/volume_gpu.py (CuPy, cuCIM when
# installed). Carry .device (googletest, wheels).
#   OUT=$OUT bash scripts/gpu_volume.sh
# Knobs: BENCH_ARGS (bench_volume's arguments), FILTER (gtest filter, default VolumeCuda*), PY=0|1,
# PY_BENCH_ARGS (volume_gpu.py's), TILES (tile shapes to time, "" for none). Logs in $OUT:
# summary.txt, gtest_volume.log, emu_volume.log, memcheck.log, bench_volume.txt, bench_tiles.txt,
# pytest_volume.log, volume_gpu.txt, build.log.
set -u -o pipefail
cd "$(dirname "$0")/.." || exit 1
OUT=${OUT:-$PWD/gpu-out}
BUDGET=${BUDGET:-540}
B=${B:-/tmp/build-gpu}
SITE=/tmp/cclabel-site
mkdir -p "$OUT"
T0=$SECONDS
left() { echo $((BUDGET - (SECONDS - T0))); }
say() { echo "== [$((SECONDS - T0)) s] $*" | tee -a "$OUT/summary.txt"; }
say "$(git rev-parse --short HEAD 2>/dev/null || echo unknown)$(git diff --quiet 2>/dev/null || echo +dirty) $(nvidia-smi --query-gpu=name,driver_version --format=csv,noheader) $(nproc) cores"

PY=${PY:-0}
[ -d .device/whl ] || PY=0
if [ "$PY" = 1 ]; then
  python3 -m pip install -q --no-index --no-deps --target $SITE .device/whl/*.whl >"$OUT/pip.log" 2>&1
  ( PYTHONPATH=$SITE CMAKE_BUILD_PARALLEL_LEVEL=6 timeout 420 python3 -m pip install --no-build-isolation --no-deps \
      --target $SITE -C build-dir=/tmp/build-py -C cmake.define.CCLABEL_ENABLE_CUDA=ON \
      -C cmake.define.CMAKE_CUDA_ARCHITECTURES=90 . >>"$OUT/pip.log" 2>&1; echo "pip rc=$?" >"$OUT/pip.rc" ) &
  pip_pid=$!
fi

for d in tests/io tests/cli; do [ -d $d ] && mv $d $d.gpu-skip; done
cmake -S . -B $B -G Ninja -DCMAKE_BUILD_TYPE=Release -DCCLABEL_ENABLE_CUDA=ON -DCCLABEL_BUILD_CLI=OFF \
  -DCMAKE_CUDA_ARCHITECTURES=90 -DCCLABEL_BUILD_BENCH=ON -DCCLABEL_GTEST_SOURCE=$PWD/.device/googletest \
  >"$OUT/build.log" 2>&1 && timeout 420 ninja -C $B -j8 cclabel_cuda_tests cclabel_emu_tests bench_volume >>"$OUT/build.log" 2>&1
rc=$?
for d in tests/io tests/cli; do [ -d $d.gpu-skip ] && mv $d.gpu-skip $d; done
say "build rc=$rc"
[ $rc -eq 0 ] || { tail -40 "$OUT/build.log"; exit 1; }
t=$B/tests/cuda/cclabel_cuda_tests

timeout 240 $t --gtest_filter="${FILTER:-VolumeCuda*}" >"$OUT/gtest_volume.log" 2>&1
say "VolumeCuda tests rc=$?: $(grep -E '^\[  (PASSED|FAILED) ' "$OUT/gtest_volume.log" | tr '\n' ' ')"
grep -E "^\[  FAILED|Failure" -A3 "$OUT/gtest_volume.log" | head -30

timeout 120 $B/tests/emu/cclabel_emu_tests --gtest_filter='EmuVolume*' >"$OUT/emu_volume.log" 2>&1
say "emulator volume tests rc=$?: $(grep -E '^\[  (PASSED|FAILED) ' "$OUT/emu_volume.log" | tr '\n' ' ')"

if [ "$PY" = 1 ]; then
  wait $pip_pid  # every timing waits for pip's compilers
  say "$(cat "$OUT/pip.rc" 2>/dev/null || echo 'pip rc=?')"
fi

timeout 200 $B/bench/cuda/bench_volume ${BENCH_ARGS:---size 512 --reps 10} >"$OUT/bench_volume.txt" 2>&1
say "bench_volume rc=$?"
cat "$OUT/bench_volume.txt"

if [ "$(left)" -gt 60 ]; then
  timeout $(( $(left) > 200 ? 150 : $(left) - 20 )) compute-sanitizer --tool memcheck --error-exitcode 9 $t \
    --gtest_filter='VolumeCuda.PaddedRowsAndSlices:VolumeCuda.HelicesSlabsAndCheckerboards:VolumeCuda.DeviceApiErrorsAndEmptyVolumes' \
    >"$OUT/memcheck.log" 2>&1
  say "memcheck on VolumeCuda rc=$?: $(grep -E 'ERROR SUMMARY' "$OUT/memcheck.log" | head -1)"
fi
# Tile shapes (Local's tiles, Border's faces) on two volumes, while time lasts.
for tile in ${TILES:-32x8x2 32x2x8 64x4x2 32x16x1}; do
  [ "$(left)" -gt 150 ] || break
  timeout 60 $B/bench/cuda/bench_volume --tile $tile --only "binary 0.3,blobs,voronoi 2k" --conn 6,26 --reps 5 \
    --no-check >>"$OUT/bench_tiles.txt" 2>&1
  say "bench_volume --tile $tile rc=$?"
done
[ -f "$OUT/bench_tiles.txt" ] && cat "$OUT/bench_tiles.txt"

if [ "$PY" = 1 ] && grep -q "pip rc=0" "$OUT/pip.rc" 2>/dev/null && [ "$(left)" -gt 90 ]; then
  PYTHONPATH=$SITE CCLABEL_PYTHON_REQUIRED=1 timeout 90 python3 -m pytest -q -p no:cacheprovider -rs \
    tests/python/test_volume_gpu.py >"$OUT/pytest_volume.log" 2>&1
  say "pytest test_volume_gpu.py rc=$?: $(tail -1 "$OUT/pytest_volume.log")"
  grep -E "^FAILED|Error" "$OUT/pytest_volume.log" | head
  if [ "$(left)" -gt 60 ]; then
    PYTHONPATH=$SITE PYTHONUNBUFFERED=1 timeout $(($(left) - 40)) python3 bench/volume_gpu.py \
      ${PY_BENCH_ARGS:---size 512 --repeat 5} >"$OUT/volume_gpu.txt" 2>&1
    say "volume_gpu.py rc=$?"
    cat "$OUT/volume_gpu.txt"
  fi
fi

say done
