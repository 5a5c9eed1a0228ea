#!/usr/bin/env bash
# The whole test suite, set-up included, as CI runs it (.ci/run calls exactly this).
#   1. release build (GCC; the CUDA backend too where nvcc is found, compiled for sm_90 with warnings
#      as errors): unit, property, adversarial, I/O and kernel-emulator tests; GPU tests skip
#      themselves without a device;
#   2. pytest: the CLI against cc3d, OpenCV and scikit-image;
#   2b. python: `pip install .` (the package, into build/python-site) and its pytest against the peers;
#   3. the same C++ tests under AddressSanitizer + UndefinedBehaviorSanitizer;
#   4. the threaded CPU labeller under ThreadSanitizer (the emulator runs fibers, not threads);
#   5. libFuzzer (clang): the labeller and the decoders, briefly, from the committed corpora.
# Set CCLABEL_TEST_STAGES="release pytest python asan tsan fuzz" to run a subset.
set -euo pipefail
root=$(cd "$(dirname "$0")" && pwd)
cd "$root"
stages=${CCLABEL_TEST_STAGES:-"release pytest python asan tsan fuzz"}
jobs=$(nproc)
has() { [[ " $stages " == *" $1 "* ]]; }
banner() { printf '\n=== %s ===\n' "$*"; }

scripts/setup.sh --test

if has release || has pytest; then
  banner "release build"
  cmake -S . -B build/release -DCMAKE_BUILD_TYPE=Release >/dev/null
  cmake --build build/release -j"$jobs"
fi
if has release; then
  banner "release tests"
  ctest --test-dir build/release --output-on-failure -j"$jobs"
fi
if has pytest; then
  banner "pytest: the CLI against cc3d, OpenCV and scikit-image"
  CCLABEL_CLI="$root/build/release/src/cli/cclabel" python3 -m pytest -q tests/python
fi
if has python; then
  banner "python: pip install . and the package against cc3d, OpenCV and scikit-image"
  # Into a private folder (no site-packages touched); the CMake build folder build/python/ is kept,
  # so a second run recompiles only what changed.
  site="$root/build/python-site"
  rm -rf "$site"
  CMAKE_BUILD_PARALLEL_LEVEL="$jobs" PIP_ROOT_USER_ACTION=ignore \
    python3 -m pip install -q --no-build-isolation --no-deps --target "$site" .
  PYTHONPATH="$site" CCLABEL_PYTHON_REQUIRED=1 python3 -m pytest -q tests/python/test_package.py tests/python/test_regions_package.py tests/python/test_dask.py
fi
if has asan; then
  banner "AddressSanitizer + UndefinedBehaviorSanitizer"
  cmake -S . -B build/asan -DCMAKE_BUILD_TYPE=RelWithDebInfo -DCCLABEL_SANITIZE=address,undefined \
    -DCCLABEL_ENABLE_CUDA=OFF -DCCLABEL_BUILD_BENCH=OFF >/dev/null
  cmake --build build/asan -j"$jobs"
  ASAN_OPTIONS=detect_leaks=1 UBSAN_OPTIONS=print_stacktrace=1 \
    ctest --test-dir build/asan --output-on-failure -j"$jobs"
fi
if has tsan; then
  banner "ThreadSanitizer: the threaded labeller"
  cmake -S . -B build/tsan -DCMAKE_BUILD_TYPE=RelWithDebInfo -DCCLABEL_SANITIZE=thread \
    -DCCLABEL_ENABLE_CUDA=OFF -DCCLABEL_BUILD_BENCH=OFF -DCCLABEL_BUILD_CLI=OFF >/dev/null
  cmake --build build/tsan -j"$jobs"
  TSAN_OPTIONS=halt_on_error=1 ctest --test-dir build/tsan --output-on-failure -j"$jobs" -L cpu
fi
if has fuzz; then
  banner "libFuzzer: labeller and decoders"
  cmake -S . -B build/fuzz -DCMAKE_BUILD_TYPE=RelWithDebInfo -DCMAKE_C_COMPILER=clang -DCMAKE_CXX_COMPILER=clang++ \
    -DCCLABEL_FUZZ=ON -DCCLABEL_ENABLE_CUDA=OFF -DCCLABEL_BUILD_TESTS=ON -DCCLABEL_BUILD_BENCH=OFF >/dev/null
  cmake --build build/fuzz -j"$jobs" --target fuzz_label fuzz_decode
  for t in label decode; do
    work=$(mktemp -d)
    cp -r "tests/fuzz/corpus_$t/." "$work/"
    "build/fuzz/tests/fuzz/fuzz_$t" -max_total_time="${CCLABEL_FUZZ_SECONDS:-60}" -rss_limit_mb=2048 \
      -max_len=1048576 -print_final_stats=1 "$work" 2>&1 | tail -n 5
    rm -rf "$work"
  done
fi
banner "all test stages passed: $stages"
