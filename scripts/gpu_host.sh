#!/usr/bin/env bash
# One device call for the GPU's host path (issue 21): builds the GPU tests, bench_host and
# cclabel_gen while pip builds the Python package with CUDA (16 cores: the builds overlap each other
# and the host-path tests, never a timing); then the host-path tests, bench_host (the copy floor, cpu / cuda / legacy /
# pinned / auto on the sheet and noise, and a stager thread sweep at the largest dpi), the Python
# sweep bench/auto_sweep.py, the other GPU tests and compute-sanitizer memcheck on the host path,
# while BUDGET seconds (default 540) last. Most important first.
#   OUT=$OUT bash scripts/gpu_host.sh
# Knobs: HOST_ARGS (bench_host's arguments), GRAPH=0 (skip bench_graph, issue 28's tolerance and
# adjacency rows; GRAPH_ARGS its arguments), SWEEP_ARGS (auto_sweep.py's), BUDGET, PIPELINES=0 (skip
# bench/pipelines.py, issue 26's segment-against-pixel table; PIPELINE_ARGS its arguments), PYTESTS
# (pytest arguments run with the CUDA package, e.g. GPU dtype tests), CLI_ROW=1 (issue 21's CLI row,
# scripts/gpu_cli_row.sh), EXTRA (a command run after the pytests, with B the build folder; its
# output in extra.txt), HOST_FILTER (the first gtest filter, run before any timing), SWEEP_ENV (VAR=value ... for
# the sweep, e.g. CCLABEL_TRACE_AUTO=1).
# Needs .device/googletest and .device/whl (bench/fetch_wheels.sh, plus nanobind and
# scikit-build-core) carried. Logs in $OUT: summary.txt, gtest_host.log, bench_host.txt,
# auto_sweep.txt, auto_sweep.md, logs.tar.gz (builds, other tests, sanitizer).
set -u -o pipefail
cd "$(dirname "$0")/.." || exit 1
OUT=${OUT:-$PWD/gpu-out}
BUDGET=${BUDGET:-540}
B=${B:-/tmp/build-gpu}
SITE=/tmp/cclabel-site
LOGS=/tmp/gpu-host-logs
rm -rf "$LOGS"
mkdir -p "$OUT" "$LOGS"
T0=$SECONDS
left() { echo $((BUDGET - (SECONDS - T0))); }
say() { echo "== [$((SECONDS - T0)) s] $*" | tee -a "$OUT/summary.txt"; }
pack() { tar -czf "$OUT/logs.tar.gz" -C "$LOGS" . 2>/dev/null; }
trap pack EXIT
say "$(git rev-parse --short HEAD 2>/dev/null || echo unknown)$(git diff --quiet 2>/dev/null || echo +dirty) $(nvidia-smi --query-gpu=name,driver_version --format=csv,noheader) $(nproc) cores"
export NVIDIA_TF32_OVERRIDE=0

python3 -m pip install -q --no-index --no-deps --target $SITE .device/whl/*.whl >"$LOGS/pip.log" 2>&1
( PYTHONPATH=$SITE CMAKE_BUILD_PARALLEL_LEVEL=8 timeout 420 python3 -m pip install --no-build-isolation --no-deps \
    --target $SITE -C build-dir=/tmp/build-py -C cmake.define.CCLABEL_ENABLE_CUDA=ON \
    -C cmake.define.CMAKE_CUDA_ARCHITECTURES=90 . >>"$LOGS/pip.log" 2>&1; echo "pip rc=$?" >"$LOGS/pip.rc" ) &
pip_pid=$!
for d in tests/io tests/cli; do [ -d $d ] && mv $d $d.gpu-skip; done
cmake -S . -B $B -G Ninja -DCMAKE_BUILD_TYPE=Release -DCCLABEL_ENABLE_CUDA=ON -DCCLABEL_BUILD_CLI=OFF \
  -DCMAKE_CUDA_ARCHITECTURES=90 -DCCLABEL_BUILD_BENCH=ON -DCCLABEL_GTEST_SOURCE=$PWD/.device/googletest \
  >"$LOGS/build.log" 2>&1 && timeout 400 ninja -C $B -j8 cclabel_cuda_tests bench_host bench_pipelines bench_graph cclabel_gen >>"$LOGS/build.log" 2>&1
rc=$?
for d in tests/io tests/cli; do [ -d $d.gpu-skip ] && mv $d.gpu-skip $d; done
say "build rc=$rc"
[ $rc -eq 0 ] || { tail -30 "$LOGS/build.log"; exit 1; }
t=$B/tests/cuda/cclabel_cuda_tests

timeout 180 $t --gtest_filter="${HOST_FILTER:-HostPath.*:BatchLoop*:*Batch*Cuda*:TypedCuda*:TypedDevice*:ToleranceCuda*:AdjacencyCuda*}" >"$OUT/gtest_host.log" 2>&1
say "host-path tests rc=$?: $(grep -E '^\[  (PASSED|FAILED) ' "$OUT/gtest_host.log" | tr '\n' ' ')"
grep -E "^\[  FAILED|Failure" "$OUT/gtest_host.log" | head

# Every timing waits for pip's build: eight compilers beside the timed calls halved every rate and
# sent the staging ring's copies to one thread (run of 2026-12-06, twelfth session).
wait $pip_pid
say "$(cat "$LOGS/pip.rc" 2>/dev/null || echo 'pip rc=?')"

if [ "${PIPELINES:-1}" = 1 ]; then
  timeout 240 python3 bench/pipelines.py --build $B ${PIPELINE_ARGS:-} >"$OUT/pipelines.txt" 2>&1
  say "pipelines rc=$?"
  cat "$OUT/pipelines.txt"
fi

timeout 200 $B/bench/cuda/bench_host ${HOST_ARGS:---dpi 50,200,800 --noise 512,2048,8192 --reps 5 --threads-sweep} \
  >"$OUT/bench_host.txt" 2>&1
say "bench_host rc=$?"
cat "$OUT/bench_host.txt"

if [ "${GRAPH:-1}" = 1 ]; then
  timeout 150 $B/bench/cuda/bench_graph ${GRAPH_ARGS:---dpi 100,800 --reps 5} >"$OUT/bench_graph.txt" 2>&1
  say "bench_graph rc=$?"
  cat "$OUT/bench_graph.txt"
fi

if grep -q "pip rc=0" "$LOGS/pip.rc" 2>/dev/null && [ "$(left)" -gt 50 ]; then
  PYTHONUNBUFFERED=1 PYTHONPATH=$SITE env ${SWEEP_ENV:-} timeout $(($(left) - 15)) python3 bench/auto_sweep.py --gen $B/bench/cclabel_gen \
    --md "$OUT/auto_sweep.md" ${SWEEP_ARGS:-} >"$OUT/auto_sweep.txt" 2>&1
  say "auto_sweep rc=$?"
  cat "$OUT/auto_sweep.txt"
else
  tail -20 "$LOGS/pip.log"
fi

if grep -q "pip rc=0" "$LOGS/pip.rc" 2>/dev/null && [ "$(left)" -gt 60 ] && [ -n "${PYTESTS:-}" ]; then
  PYTHONPATH=$SITE CCLABEL_PYTHON_REQUIRED=1 timeout $(($(left) - 40)) python3 -m pytest -q -p no:cacheprovider -rs \
    $PYTESTS >"$OUT/pytest.log" 2>&1
  say "pytest ($PYTESTS) rc=$?: $(tail -1 "$OUT/pytest.log")"
  grep -E "^FAILED|Error" "$OUT/pytest.log" | head
fi
if [ -n "${EXTRA:-}" ] && [ "$(left)" -gt 60 ]; then
  B=$B timeout $(($(left) - 40)) bash -c "$EXTRA" >"$OUT/extra.txt" 2>&1
  say "EXTRA rc=$?"
  tail -60 "$OUT/extra.txt"
fi
if [ "${CLI_ROW:-0}" = 1 ] && [ "$(left)" -gt 120 ]; then
  OUT=$OUT GEN=$B/bench/cclabel_gen timeout $(($(left) - 20)) bash scripts/gpu_cli_row.sh >"$LOGS/cli_row.log" 2>&1
  say "CLI row rc=$?"
  tail -12 "$LOGS/cli_row.log"
fi
(cat /etc/os-release | head -2; ldd --version | head -1; ldconfig -p | grep -E "libpng|libtiff|libz\.|poppler" ; ls /usr/include/zlib.h /usr/include/png.h 2>&1) >"$OUT/host_probe.txt" 2>&1

if [ "$(left)" -gt 70 ]; then
  CCLABEL_GPU_HUGE=0 timeout $(($(left) - 40)) $t --gtest_filter='-HostPath.*' >"$LOGS/gtest_rest.log" 2>&1
  say "other GPU tests rc=$?: $(grep -E '^\[  (PASSED|FAILED) ' "$LOGS/gtest_rest.log" | tr '\n' ' ')"
  grep -E "^\[  FAILED" "$LOGS/gtest_rest.log" | head
fi
if [ "$(left)" -gt 25 ]; then
  timeout $(($(left) - 10)) compute-sanitizer --tool memcheck --error-exitcode 9 $t \
    --gtest_filter='HostPath.EveryFormat*:HostPath.Rows*:HostPath.Device*' >"$LOGS/sanitize.log" 2>&1
  say "memcheck on the host path rc=$?: $(grep -E 'ERROR SUMMARY' "$LOGS/sanitize.log" | head -1)"
fi
say done
