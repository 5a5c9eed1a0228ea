#!/usr/bin/env bash
# One device call that checks the shipped defaults: builds the GPU tests and bench_graph, bench_host
# and cclabel_gen (googletest from .device/googletest), with the Python package (CUDA) beside it when
# .device/whl holds nanobind and scikit-build-core; then the whole GPU suite but the huge pictures,
# bench_graph on the 800 dpi sheet (tolerance 64, with CCLABEL_TRACE_ADJACENCY=1), bench_host at 50
# Mpx and noise, and, while BUDGET seconds (default 540) last, auto's whole sweep from Python.
#   OUT=$OUT bash scripts/gpu_suite.sh        (carry .device)
# Logs: $OUT/summary.txt, $OUT/run.txt (what the benchmarks printed), $OUT/logs.tar.gz.
set -u -o pipefail
cd "$(dirname "$0")/.." || exit 1
OUT=${OUT:-$PWD/gpu-out}; BUDGET=${BUDGET:-540}; B=${B:-/tmp/build-gpu}; SITE=/tmp/cclabel-site; L=/tmp/gpu-suite-logs
rm -rf $L; mkdir -p "$OUT" $L; T0=$SECONDS
left() { echo $((BUDGET - (SECONDS - T0))); }
say() { echo "== [$((SECONDS - T0)) s] $*" | tee -a "$OUT/summary.txt"; }
trap 'tar -czf "$OUT/logs.tar.gz" -C $L . 2>/dev/null' EXIT
say "$(git rev-parse --short HEAD 2>/dev/null || echo unknown) $(nvidia-smi --query-gpu=name,driver_version --format=csv,noheader) $(nproc) cores"
pip_pid=""
if ls .device/whl/nanobind-*.whl >/dev/null 2>&1; then
  python3 -m pip install -q --no-index --no-deps --target $SITE .device/whl/*.whl >$L/pip.log 2>&1
  ( PYTHONPATH=$SITE CMAKE_BUILD_PARALLEL_LEVEL=6 timeout 400 python3 -m pip install --no-build-isolation --no-deps \
      --target $SITE -C build-dir=/tmp/build-py -C cmake.define.CCLABEL_ENABLE_CUDA=ON \
      -C cmake.define.CMAKE_CUDA_ARCHITECTURES=90 . >>$L/pip.log 2>&1; echo "pip rc=$?" >$L/pip.rc ) &
  pip_pid=$!
fi
for d in tests/io tests/cli; do [ -d $d ] && mv $d $d.gpu-skip; done
cmake -S . -B $B -G Ninja -DCMAKE_BUILD_TYPE=Release -DCCLABEL_ENABLE_CUDA=ON -DCCLABEL_BUILD_CLI=OFF \
  -DCMAKE_CUDA_ARCHITECTURES=90 -DCCLABEL_BUILD_BENCH=ON -DCCLABEL_GTEST_SOURCE=$PWD/.device/googletest \
  >$L/build.log 2>&1 && timeout 400 ninja -C $B -j10 cclabel_cuda_tests bench_graph bench_host cclabel_gen >>$L/build.log 2>&1
rc=$?
for d in tests/io tests/cli; do [ -d $d.gpu-skip ] && mv $d.gpu-skip $d; done
say "build rc=$rc"; [ $rc -eq 0 ] || { tail -30 $L/build.log; exit 1; }
timeout 240 $B/tests/cuda/cclabel_cuda_tests --gtest_filter='-*Huge*' >$L/gtest.log 2>&1
say "GPU tests rc=$?: $(grep -E '^\[  (PASSED|FAILED) ' $L/gtest.log | tr '\n' ' ')"
grep -E '^\[  FAILED  \]|Failure$' -A4 $L/gtest.log | head -30 | tee -a "$OUT/summary.txt"
if [ "$(left)" -gt 60 ]; then
  CCLABEL_TRACE_ADJACENCY=1 timeout 50 $B/bench/cuda/bench_graph --dpi 800 --tolerance 64 --reps 5 >>$OUT/run.txt 2>$L/graph_trace.txt
  say "bench_graph rc=$?"; grep -v '^$' $L/graph_trace.txt | tail -14 >>$OUT/run.txt
fi
[ "$(left)" -gt 40 ] && { timeout 30 $B/bench/cuda/bench_host --dpi 200 --noise 512,2048 --reps 9 >>$OUT/run.txt 2>&1; say "bench_host rc=$?"; }
if [ -n "$pip_pid" ]; then
  wait $pip_pid; say "$(cat $L/pip.rc)"
  if grep -q "rc=0" $L/pip.rc && [ "$(left)" -gt 60 ]; then
    CCLABEL_TRACE_AUTO=1 PYTHONPATH=$SITE PYTHONUNBUFFERED=1 timeout $(($(left) - 15)) python3 bench/auto_sweep.py \
      --gen $B/bench/cclabel_gen --fresh >>$OUT/run.txt 2>$L/sweep_trace.txt
    say "auto_sweep rc=$?"
  fi
fi
say done
