#!/usr/bin/env bash
# The side-by-side peer benchmark on the GPU machine, in one command from the repository root:
#   bash bench/gpu_peers.sh [peers.py arguments...]       e.g. --max-dpi 400 --reps 3
# 1. installs the carried wheels (.device/whl, from bench/fetch_wheels.sh: cc3d, colorcc, cuCIM)
#    into /tmp/site, the machine reaching no package index;
# 2. builds, at the same time: bench/cclabel_gen, bench/cclabel_time and the NPP harness
#    bench/cuda/npp_label (CMake, Release, CUDA; no tests), and the cclabel Python package
#    (pip --no-build-isolation into /tmp/site);
# 3. runs bench/peers.py with the arguments given, everything written under ${OUT:-bench/out}:
#    peers.md (the RESULTS.md section), peers.json, peers.png, RESULTS.md (bench/RESULTS.md with
#    the section replaced, to copy back), failing crops, and the logs.
# The whole run is meant to end within TOTAL_S seconds (default 470): peers.py stops starting new
# workloads RESERVE_S (default 120) before the end, and says which it skipped. CUDA=OFF builds without CUDA
# (a smoke test of this script on a machine without a GPU).
set -u -o pipefail
cd "$(dirname "$0")/.."
T0=$SECONDS
OUT=${OUT:-bench/out}
mkdir -p "$OUT"
OUT=$(cd "$OUT" && pwd)
SITE=${SITE:-/tmp/site}
B=${B:-build/gpu-peers}
TOTAL_S=${TOTAL_S:-470}
CUDA=${CUDA:-ON}
log() { echo "== $(date -u +%T) [$((SECONDS - T0)) s] $*" | tee -a "$OUT/summary.txt"; }

log "commit $(git rev-parse --short HEAD 2>/dev/null || echo unknown)$(git diff --quiet HEAD 2>/dev/null || echo +dirty)"
nvidia-smi --query-gpu=name,driver_version,memory.total --format=csv,noheader 2>&1 | tee -a "$OUT/summary.txt"
nvcc --version 2>/dev/null | tail -1 | tee -a "$OUT/summary.txt"

mkdir -p "$SITE"
if ls .device/whl/*.whl >/dev/null 2>&1; then
  python3 -m pip install -q --upgrade --no-index --no-deps --target "$SITE" .device/whl/*.whl >"$OUT/wheels.log" 2>&1
  log "wheels rc=$?: $(ls .device/whl | tr '\n' ' ')"
else
  log "no .device/whl: cc3d, colorcc and cuCIM will be reported as not installed unless the image has them"
fi

# The CLI needs libpng/libtiff/CLI11, which the GPU image lacks; the benchmark does not need it.
cli=OFF
pkg-config --exists libpng libtiff-4 2>/dev/null && cli=ON
gen=""
command -v ninja >/dev/null && gen="-G Ninja"
jobs=$(nproc)
# The C++ tools need no CUDA (a CPU build is quicker); only the NPP harness is built in a CUDA
# configuration, and only it (not the library). The Python package compiles the CUDA backend.
(
  cmake -S . -B "$B" $gen -DCMAKE_BUILD_TYPE=Release -DCCLABEL_ENABLE_CUDA=OFF -DCCLABEL_BUILD_TESTS=OFF \
        -DCCLABEL_BUILD_CLI=$cli -DCCLABEL_BUILD_BENCH=ON >"$OUT/cmake.log" 2>&1 &&
  cmake --build "$B" -j$((jobs / 2)) --target cclabel_gen cclabel_time >>"$OUT/cmake.log" 2>&1
  echo "tools rc=$?" >"$OUT/tools.rc"
) &
tools_pid=$!
# NPP is optional: without it (or if the harness does not build) peers.py reports npp as not built.
(
  rc=1
  if [ "$CUDA" = ON ]; then
    cmake -S . -B "$B-cuda" $gen -DCMAKE_BUILD_TYPE=Release -DCCLABEL_ENABLE_CUDA=ON -DCCLABEL_BUILD_TESTS=OFF \
          -DCCLABEL_BUILD_CLI=OFF -DCCLABEL_BUILD_BENCH=ON >"$OUT/npp_build.log" 2>&1 &&
    cmake --build "$B-cuda" -j2 --target npp_label >>"$OUT/npp_build.log" 2>&1
    rc=$?
  fi
  echo "npp_label rc=$rc" >"$OUT/npp.rc"
) &
npp_pid=$!
(
  python3 -c "import scikit_build_core, nanobind" 2>>"$OUT/pip.log" || echo "scikit-build-core or nanobind missing" >>"$OUT/pip.log"
  CMAKE_BUILD_PARALLEL_LEVEL=$((jobs / 2)) python3 -m pip install --upgrade --no-build-isolation --no-deps --target "$SITE" \
    -C build-dir=$B-py -C cmake.define.CCLABEL_ENABLE_CUDA=$CUDA . >>"$OUT/pip.log" 2>&1
  echo "pip rc=$?" >"$OUT/pip.rc"
) &
pip_pid=$!
wait $tools_pid
wait $npp_pid
wait $pip_pid
log "$(cat "$OUT/tools.rc") $(cat "$OUT/npp.rc") $(cat "$OUT/pip.rc") (logs: cmake.log, npp_build.log, pip.log)"
grep -q "tools rc=0" "$OUT/tools.rc" || { tail -30 "$OUT/cmake.log"; exit 1; }
[ "$CUDA" = ON ] && ! grep -q "npp_label rc=0" "$OUT/npp.rc" && tail -15 "$OUT/npp_build.log"
grep -q "pip rc=0" "$OUT/pip.rc" || tail -15 "$OUT/pip.log"

if [ "${NO_PEERS:-0}" = 1 ]; then
  log "peers.py not run (NO_PEERS=1)"
  exit 0
fi
# WAIT_FOR: a file another job on the machine creates when it has finished with the GPU (the
# builds above overlap with it; the timings must not).
if [ -n "${WAIT_FOR:-}" ]; then
  while [ ! -e "$WAIT_FOR" ] && [ $((SECONDS - T0)) -lt $((TOTAL_S - 60)) ]; do sleep 1; done
  log "waited for $WAIT_FOR"
fi
cp bench/RESULTS.md "$OUT/RESULTS.md"
left=$((TOTAL_S - (SECONDS - T0)))
# Time for the last workload started (the largest sheet takes about a minute) and the report.
reserve=${RESERVE_S:-120}
deadline=$((left > reserve + 70 ? left - reserve : 70))
log "peers.py, ${left} s left, new workloads until ${deadline} s"
PYTHONPATH="$SITE${PYTHONPATH:+:$PYTHONPATH}" timeout $((left > 60 ? left : 60)) \
  python3 bench/peers.py --build "$B" --npp "$B-cuda/bench/cuda/npp_label" --out "$OUT" --results "$OUT/RESULTS.md" --deadline-s $deadline "$@" \
  > >(tee "$OUT/peers.txt") 2> >(tee "$OUT/peers.log" >&2)
rc=$?
log "peers.py rc=$rc"
exit $rc
