#!/usr/bin/env bash
# Builds, tests, sanitizes and benchmarks the CUDA backend on the GPU machine in one go; logs go to
# $OUT (or ./gpu-out). Phases can be picked: scripts/gpu_check.sh [build] [test] [bench] [sanitize]
# [python] [benches] (default: build test bench sanitize). python: `pip install .` and the package's
# pytest with CuPy and PyTorch on the GPU (cc3d from .device/whl). benches: every other bench/cuda
# program that was built (bench_segment, bench_stats, ...), each with BENCHES_TIMEOUT. Knobs: TEST_TIMEOUT, HUGE (1: A37/A38 too), BENCH_TIMEOUT, BENCH_ARGS,
# SAN_TIMEOUT, SAN_TOOLS (default: memcheck initcheck synccheck racecheck), SAN_FILTER, B. GoogleTest comes from .device/googletest (a copy of /usr/src/googletest
# carried along), since the GPU machine has none. Every step has a time limit so that one stuck
# step cannot eat the device time.
set -u -o pipefail
cd "$(dirname "$0")/.."
OUT=${OUT:-$PWD/gpu-out}
mkdir -p "$OUT"
phases=${*:-build test bench sanitize}
has() { [[ " $phases " == *" $1 "* ]]; }
# B: the build folder. A folder built elsewhere (same CUDA image) can be carried and used with the
# phases "test bench sanitize" to save the device's build time.
B=${B:-build-gpu}
log() { echo "== $*" | tee -a "$OUT/summary.txt"; }

log "$(date -u +%FT%TZ) commit $(git rev-parse --short HEAD 2>/dev/null || echo unknown)$(git diff --quiet 2>/dev/null || echo +dirty)"
nvidia-smi --query-gpu=name,driver_version,memory.total,clocks.sm,clocks.mem --format=csv,noheader | tee -a "$OUT/summary.txt"
nvcc --version | tail -1 | tee -a "$OUT/summary.txt"

if has build; then
  cli=ON
  # The CLI and its tests need libpng, libtiff and CLI11; the GPU machine has none of them, so
  # they stay out of this build (the CPU machines build them).
  if ! pkg-config --exists libpng libtiff-4 2>/dev/null; then
    cli=OFF
    for d in tests/io tests/cli; do [ -d $d ] && mv $d $d.gpu-skip; done
  fi
  t0=$SECONDS
  cmake -S . -B $B -G Ninja -DCMAKE_BUILD_TYPE=Release -DCCLABEL_ENABLE_CUDA=ON -DCCLABEL_BUILD_CLI=$cli \
        -DCCLABEL_BUILD_BENCH=ON -DCCLABEL_GTEST_SOURCE=$PWD/.device/googletest >"$OUT/build.log" 2>&1 &&
  benches=$(cd bench/cuda && ls bench_*.cpp | sed 's/\.cpp$//' | tr '\n' ' ')
  ninja -C $B -j"$(nproc)" cclabel_cuda_tests cclabel_emu_tests $benches >>"$OUT/build.log" 2>&1
  rc=$?
  log "build rc=$rc in $((SECONDS - t0)) s"
  [ $rc -eq 0 ] || { tail -40 "$OUT/build.log"; exit 1; }
  cuobjdump --dump-resource-usage $B/CMakeFiles/cclabel.dir/src/cuda/label_cuda.cu.o 2>/dev/null |
    grep -E "Function|REG" | paste - - | sed 's/ \+/ /g' | cut -c1-200 > "$OUT/resources.txt"
fi

if has test; then
  t0=$SECONDS
  CCLABEL_GPU_HUGE=${HUGE:-1} timeout ${TEST_TIMEOUT:-300} $B/tests/cuda/cclabel_cuda_tests >"$OUT/gpu_tests.log" 2>&1
  rc=$?
  log "gpu tests rc=$rc in $((SECONDS - t0)) s: $(grep -E '^\[  (PASSED|FAILED) ' "$OUT/gpu_tests.log" | tr '\n' ' ')"
  grep -E "FAILED|Failure" "$OUT/gpu_tests.log" | head -20
fi

if has bench; then
  t0=$SECONDS
  timeout ${BENCH_TIMEOUT:-240} $B/bench/cuda/bench_cuda ${BENCH_ARGS:-} 2>&1 | tee "$OUT/bench.txt"
  log "bench rc=$? in $((SECONDS - t0)) s"
fi

if has sanitize; then
  # Small and medium cases only: the tools slow kernels 10-100x. racecheck sees shared memory only,
  # so the global union-find races rest on the emulator, repetition and the determinism test.
  filter=${SAN_FILTER:-'Cuda.RandomImages*:Cuda.BitHelpers*:Cuda.EmptyAndTiny:Cuda.BackToBack*:Cuda.TwoStreams*:Cuda.DeviceApiErrors'}
  for tool in ${SAN_TOOLS:-memcheck initcheck synccheck racecheck}; do
    t0=$SECONDS
    extra=""; [ $tool = memcheck ] && extra="--leak-check full"
    timeout ${SAN_TIMEOUT:-100} compute-sanitizer --tool $tool $extra --error-exitcode 9 \
      $B/tests/cuda/cclabel_cuda_tests --gtest_filter="$filter" >"$OUT/sanitize_$tool.log" 2>&1
    rc=$?
    log "compute-sanitizer $tool rc=$rc in $((SECONDS - t0)) s: $(grep -E 'ERROR SUMMARY|PASSED|FAILED' "$OUT/sanitize_$tool.log" | tr '\n' ' ' | cut -c1-200)"
  done
fi
if has python; then
  t0=$SECONDS
  site=/tmp/cclabel-site
  rm -rf $site
  [ -d .device/whl ] && python3 -m pip install -q --no-index --no-deps --target $site .device/whl/*.whl >"$OUT/pip.log" 2>&1
  CMAKE_BUILD_PARALLEL_LEVEL=$(nproc) timeout ${PIP_TIMEOUT:-400} python3 -m pip install -v --no-build-isolation --no-deps \
    --target $site . >>"$OUT/pip.log" 2>&1
  log "pip install rc=$? in $((SECONDS - t0)) s"
  t0=$SECONDS
  PYTHONPATH=$site CCLABEL_PYTHON_REQUIRED=1 timeout ${PYTEST_TIMEOUT:-300} python3 -m pytest -q -rs \
    $(ls tests/python/test_package.py tests/python/test_regions_package.py 2>/dev/null) >"$OUT/pytest.log" 2>&1
  log "pytest rc=$? in $((SECONDS - t0)) s: $(tail -1 "$OUT/pytest.log")"
fi

if has benches; then
  for b in $B/bench/cuda/bench_*; do
    name=$(basename $b)
    [ "$name" = bench_cuda ] && continue
    t0=$SECONDS
    timeout ${BENCHES_TIMEOUT:-120} $b 2>&1 | tee "$OUT/$name.txt" | tail -30
    log "$name rc=$? in $((SECONDS - t0)) s"
  done
fi
cat "$OUT/summary.txt"
