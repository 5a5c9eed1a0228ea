#!/usr/bin/env bash
# One device call that does everything a GPU round needs, within BUDGET seconds (default 400):
#   - builds the GPU tests and benchmarks (scripts/gpu_check.sh) while bench/gpu_peers.sh builds
#     its tools and the Python package (16 cores: the builds overlap, the timings never do);
#   - the GPU tests (HUGE=0), bench_batch, bench_cuda at 800 dpi, then the side-by-side peer benchmark until PEERS_END
#     (PEERS_ARGS, default --max-dpi 400), then bench_segment, bench_stats, bench_tiles, the Python
#     package's GPU tests (CuPy, PyTorch) and, if time is left, the CCLABEL_GPU_HUGE=1 pictures.
# Knobs: PEERS=0 builds the peers' tools and the package but runs no peers.py, GTESTS=0 skips the GPU tests, CUDA_BENCH=0 bench_batch and bench_cuda (CUDA_BENCH_ARGS,
# CUDA_BENCH_S its arguments and time limit), SAN=1 runs compute-sanitizer, NCU=1 profiles, BENCHES=0 the
# segment/stats/tiles benchmarks (BENCH_LIST: some of them; TILES_S, TILES_ARGS bench_tiles's time and arguments), PYTESTS=0 the package's GPU tests, HUGE=0 the huge pictures;
# DASK_ARGS (unset: skipped) runs bench/dask_bench.py with those arguments after the peers.
# Logs in round.tar.gz (check/, peers/); summary.txt says what ran and how long it took.
# Needs .device/googletest and .device/whl (bench/fetch_wheels.sh) carried.
set -u -o pipefail
cd "$(dirname "$0")/.."
T0=$SECONDS
BUDGET=${BUDGET:-400}
# The device tool brings back at most 8 files from $OUT: everything is written under a work folder
# and packed at the end (also when the round is cut short) into $OUT/round.tar.gz, beside copies of
# the summary and the peers' RESULTS.md.
FINAL=${OUT:-$PWD/gpu-out}
OUT=${ROUND_DIR:-/tmp/gpu-round}
rm -rf "$OUT"
mkdir -p "$OUT/check" "$OUT/peers" "$FINAL"
pack() {
  cp "$OUT/summary.txt" "$FINAL/" 2>/dev/null
  cp "$OUT/peers/RESULTS.md" "$FINAL/peers_RESULTS.md" 2>/dev/null
  cp "$OUT/peers/peers.png" "$FINAL/" 2>/dev/null
  tar -czf "$FINAL/round.tar.gz" -C "$OUT" . 2>/dev/null
}
trap pack EXIT
trap 'exit 124' TERM INT
export B=${B:-/tmp/build-gpu}
go=/tmp/cclabel-peers-go
rm -f "$go"
left() { echo $((BUDGET - (SECONDS - T0))); }
log() { echo "== [$((SECONDS - T0)) s] $*" | tee -a "$OUT/summary.txt"; }

# The peers run ends PEERS_END seconds in (default BUDGET − 120), leaving time for the rest.
( OUT=$OUT/peers TOTAL_S=${PEERS_END:-$((BUDGET - 120))} WAIT_FOR=$go RESERVE_S=${RESERVE_S:-60} NO_PEERS=$((1 - ${PEERS:-1})) \
    bash bench/gpu_peers.sh ${PEERS_ARGS:---max-dpi 400} >"$OUT/peers/run.txt" 2>&1 ) &
peers=$!

OUT=$OUT/check bash scripts/gpu_check.sh build >"$OUT/check/run.txt" 2>&1
log "$(grep -E '^== build' "$OUT/check/summary.txt" | tr '\n' ' ')"
# The GPU tests in groups, each with its own time limit, so that a hang in new code cannot take
# the others' results with it.
gtest() {  # name, time limit, filter
  local t0=$SECONDS
  CCLABEL_GPU_HUGE=0 timeout "$2" "$B/tests/cuda/cclabel_cuda_tests" --gtest_filter="$3" >"$OUT/check/gpu_$1.log" 2>&1
  log "gpu tests $1 rc=$? in $((SECONDS - t0)) s: $(grep -E '^\[  (PASSED|FAILED) ' "$OUT/check/gpu_$1.log" | tr '\n' ' ')"
  grep -E "^\[  FAILED  \]|Failure$" "$OUT/check/gpu_$1.log" | head -12 | tee -a "$OUT/summary.txt"
}
if [ "${GTESTS:-1}" = 1 ]; then
  gtest labeller ${TEST_S:-60} 'Cuda.*:CudaBatch*'
  gtest segment_stats ${TEST_S:-60} 'SegmentCuda*:CudaStats*'
  gtest tiles ${TEST_S:-60} '*TilesCuda*'
fi

bench() {  # name, time limit, arguments
  local b=$1 limit=$2
  shift 2
  [ -x "$B/bench/cuda/$b" ] || { log "$b: not built"; return; }
  [ "$(left)" -gt 15 ] || { log "$b: no time left"; return; }
  [ "$limit" -lt "$(left)" ] || limit=$(( $(left) - 5 ))
  local t0=$SECONDS
  timeout "$limit" "$B/bench/cuda/$b" "$@" >"$OUT/check/$b.txt" 2>&1
  log "$b rc=$? in $((SECONDS - t0)) s"
}
if [ "${CUDA_BENCH:-1}" = 1 ]; then
  bench bench_batch 30
  bench bench_cuda ${CUDA_BENCH_S:-40} ${CUDA_BENCH_ARGS:---dpi 800 --variants 0 --reps 9 --no-host}
fi
# NCU=1: an Nsight Compute profile of the segment pipeline's kernels (400 dpi sheet, paper labelled).
if [ "${NCU:-0}" = 1 ] && [ -x "$B/bench/cuda/bench_cuda" ]; then
  t0=$SECONDS
  timeout ${NCU_S:-90} ncu --kernel-name regex:seg_ --launch-count ${NCU_COUNT:-7} --section SpeedOfLight --section WarpStateStats \
    --section MemoryWorkloadAnalysis --section Occupancy --section LaunchStats \
    "$B/bench/cuda/bench_cuda" ${NCU_ARGS:---dpi 400 --variants 0 --reps 1 --no-host --no-check} >"$OUT/check/ncu.txt" 2>&1
  log "ncu rc=$? in $((SECONDS - t0)) s"
fi
# compute-sanitizer (SAN=1): memcheck and initcheck on small tests of both pipelines.
if [ "${SAN:-0}" = 1 ]; then
  t0=$SECONDS
  OUT=$OUT/check SAN_TOOLS="${SAN_TOOLS:-memcheck initcheck}" SAN_TIMEOUT=${SAN_TIMEOUT:-60} \
    SAN_FILTER="${SAN_FILTER:-Cuda.EmptyAndTiny:Cuda.BackToBack*:Cuda.TwoStreams*:Cuda.DeviceApiErrors:CudaBatchDevice.*}" \
    bash scripts/gpu_check.sh sanitize >"$OUT/check/sanitize.txt" 2>&1
  log "sanitizer in $((SECONDS - t0)) s: $(grep compute-sanitizer "$OUT/check/summary.txt" | tr '\n' ' ')"
fi
touch "$go"
log "peers started (PEERS=${PEERS:-1})"
wait $peers
log "peers: $(grep -E 'peers.py rc|skipped' "$OUT/peers/summary.txt" 2>/dev/null | tr '\n' ' ')"
if [ -n "${DASK_ARGS:-}" ] && grep -q "pip rc=0" "$OUT/peers/pip.rc" 2>/dev/null && [ "$(left)" -gt 40 ]; then
  t0=$SECONDS
  PYTHONPATH=/tmp/site timeout $(( $(left) - 20 )) python3 bench/dask_bench.py $DASK_ARGS --json "$OUT/dask.json" \
    >"$OUT/dask.txt" 2>&1
  log "dask bench rc=$? in $((SECONDS - t0)) s"
  grep -vE '^ |Traceback' "$OUT/dask.txt" | tail -20 | tee -a "$OUT/summary.txt"
fi
if [ "${BENCHES:-1}" = 1 ]; then  # BENCH_LIST picks some of them
  for b in ${BENCH_LIST:-bench_segment bench_stats bench_tiles}; do
    case $b in
      bench_tiles) bench bench_tiles ${TILES_S:-50} ${TILES_ARGS:---reps 3} ;;
      *) bench "$b" 25 ;;
    esac
  done
fi

# The package's GPU tests (CuPy, PyTorch), with the Python build of gpu_peers.sh (in /tmp/site).
if [ "${PYTESTS:-1}" != 1 ]; then
  :
elif grep -q "pip rc=0" "$OUT/peers/pip.rc" 2>/dev/null && [ "$(left)" -gt 30 ]; then
  t0=$SECONDS
  PYTHONPATH=/tmp/site CCLABEL_PYTHON_REQUIRED=1 timeout $(( $(left) - 10 )) python3 -m pytest -q -p no:cacheprovider \
    tests/python/test_package.py tests/python/test_regions_package.py tests/python/test_dask.py::test_cupy_chunks \
    >"$OUT/check/pytest.log" 2>&1
  log "python GPU tests rc=$? in $((SECONDS - t0)) s: $(tail -1 "$OUT/check/pytest.log")"
else
  log "python tests not run: $(cat "$OUT/peers/pip.rc" 2>/dev/null), $(left) s left"
fi

if [ "$(left)" -gt 60 ] && [ "${HUGE:-1}" = 1 ]; then
  t0=$SECONDS
  CCLABEL_GPU_HUGE=1 timeout $(( $(left) - 10 )) "$B/tests/cuda/cclabel_cuda_tests" --gtest_filter='Cuda.HugePictures' \
    >"$OUT/check/gpu_tests_huge.log" 2>&1
  log "huge GPU tests rc=$? in $((SECONDS - t0)) s: $(grep -E '^\[  (PASSED|FAILED|  OK) ' "$OUT/check/gpu_tests_huge.log" | tr '\n' ' ')"
fi
log "done"
