#!/usr/bin/env bash
# The whole test suite, set-up included, as CI runs it (.ci/run runs ./run.sh, then this).
#   release   release build (GCC; the CUDA backend too where nvcc is found, compiled for sm_90 with
#             warnings as errors): unit, property, adversarial, I/O and kernel-emulator tests; GPU
#             tests skip themselves without a device;
#   consumer  `cmake --install` of the release build, and tests/consumer (a project outside the
#             tree) finding it with find_package(cclabel CONFIG REQUIRED) and with pkg-config;
#   pytest    the CLI against cc3d, OpenCV and scikit-image;
#   python    `pip wheel .`, installed into a fresh venv with only NumPy (import, dependencies,
#             doctests); a wheel built from the sdist alone; then the package's tests against the
#             peers in a venv of its own;
#   docs      the Sphinx site (warnings as errors), the doctests of docs/ and the README, and every
#             CLI and C++ example of the docs run against the built tool and the installed package;
#   asan      the C++ tests under AddressSanitizer + UndefinedBehaviorSanitizer;
#   tsan      the threaded CPU labeller under ThreadSanitizer (the emulator runs fibers, not threads);
#   fuzz      libFuzzer (clang): the labeller and the decoders, briefly, from the committed corpora.
# Set CCLABEL_TEST_STAGES="release consumer pytest python docs asan tsan fuzz" to run a subset (docs
# needs the builds of release, consumer and python), and
# CCLABEL_ENABLE_CUDA=ON|OFF|AUTO (default AUTO) for the release build's CUDA backend.
#
# Every build folder is configured with every option it depends on, whatever its cache already
# holds (run.sh configures build/release without tests), and a stage that runs no test fails.
set -euo pipefail
root=$(cd "$(dirname "$0")" && pwd)
cd "$root"
stages=${CCLABEL_TEST_STAGES:-"release consumer pytest python docs asan tsan fuzz"}
jobs=$(nproc)
has() { [[ " $stages " == *" $1 "* ]]; }

# Wall time of each stage, printed at the end (also when a stage fails).
timings=()
stage=""
stage_start=$SECONDS
end_stage() {
  [[ -n "$stage" ]] && timings+=("$(printf '%6ds  %s' $((SECONDS - stage_start)) "$stage")")
  stage=""
}
banner() {
  end_stage
  stage="$*"
  stage_start=$SECONDS
  printf '\n=== %s [+%ds] ===\n' "$*" "$SECONDS"
}
report_timings() {
  local rc=$?
  [[ -n "$stage" ]] && timings+=("$(printf '%6ds  %s%s' $((SECONDS - stage_start)) "$stage" \
    "$( ((rc)) && echo '  (FAILED)')")")
  printf '\n=== wall time per stage ===\n'
  printf '%s\n' "${timings[@]}"
  printf '%6ds  total\n' "$SECONDS"
}
trap report_timings EXIT

# configure FOLDER OPTION...: the options every build states, then the folder's own.
configure() {
  local dir=$1
  shift
  cmake -S . -B "$dir" -DCCLABEL_FUZZ=OFF -DCCLABEL_SANITIZE= -DBUILD_SHARED_LIBS=OFF \
    -DCCLABEL_BUILD_TESTS=ON "$@" >/dev/null
}

# run_pytest ARGS...: pytest that must run and pass at least one test. Exit 5 (nothing collected)
# is a failure, and so is a run in which everything was skipped.
run_pytest() {
  local log rc
  log=$(mktemp)
  set +e
  python3 -m pytest "$@" 2>&1 | tee "$log"
  rc=${PIPESTATUS[0]}
  set -e
  if ((rc == 5)); then
    echo "test.sh: pytest collected no tests ($*)" >&2
    return 1
  elif ((rc != 0)); then
    return "$rc"
  elif ! tail -n 1 "$log" | grep -Eq '[1-9][0-9]* passed'; then
    echo "test.sh: pytest passed no test, everything was skipped ($*)" >&2
    return 1
  fi
  rm -f "$log"
}

scripts/setup.sh --test

if has release || has consumer || has pytest; then
  banner "release build"
  configure build/release -DCMAKE_BUILD_TYPE=Release -DCCLABEL_BUILD_BENCH=ON -DCCLABEL_BUILD_CLI=ON \
    -DCCLABEL_ENABLE_CUDA="${CCLABEL_ENABLE_CUDA:-AUTO}" -DCCLABEL_INSTALL=ON
  cmake --build build/release -j"$jobs"
fi
if has release; then
  banner "release tests"
  ctest --test-dir build/release --output-on-failure --no-tests=error -j"$jobs"
fi
if has consumer; then
  banner "consumer: cmake --install, then find_package(cclabel) and pkg-config from outside the tree"
  rm -rf build/install build/consumer build/consumer-cuda
  cmake --install build/release --prefix build/install >/dev/null
  cmake -S tests/consumer -B build/consumer -DCMAKE_PREFIX_PATH="$root/build/install" \
    -DCMAKE_BUILD_TYPE=Release >/dev/null
  cmake --build build/consumer -j"$jobs" >/dev/null
  build/consumer/consumer
  # The same program built by hand with the pkg-config file's flags.
  pc="env PKG_CONFIG_PATH=$root/build/install/lib/pkgconfig pkg-config"
  g++ -std=c++20 -O1 -DCONSUMER_PACKAGE_VERSION="\"$($pc --modversion cclabel)\"" tests/consumer/consumer.cpp \
    $($pc --cflags --libs cclabel) -o build/consumer/consumer-pkgconfig
  build/consumer/consumer-pkgconfig >/dev/null
  echo "pkg-config build: same labels"
  # One version everywhere: the installed tool's, the package's (the headers' is checked by consumer).
  [[ "$(build/install/bin/cclabel --version)" == "cclabel $($pc --modversion cclabel)" ]] ||
    { echo "test.sh: cclabel --version says '$(build/install/bin/cclabel --version)'" >&2; exit 1; }
  # COMPONENTS cuda: found in a build with the CUDA backend, a clear error without one.
  if grep -q '^set(cclabel_HAS_CUDA ON)' build/install/lib/cmake/cclabel/cclabelConfig.cmake; then
    cmake -S tests/consumer -B build/consumer-cuda -DCMAKE_PREFIX_PATH="$root/build/install" \
      -DCMAKE_BUILD_TYPE=Release -DCONSUMER_CUDA=ON >/dev/null
    cmake --build build/consumer-cuda -j"$jobs" >/dev/null
    build/consumer-cuda/consumer >/dev/null
    echo "COMPONENTS cuda: found, cclabel::cuda linked"
  else
    if out=$(cmake -S tests/consumer -B build/consumer-cuda -DCMAKE_PREFIX_PATH="$root/build/install" \
      -DCONSUMER_CUDA=ON 2>&1); then
      echo "test.sh: find_package(cclabel COMPONENTS cuda) succeeded on a build without CUDA" >&2
      exit 1
    fi
    # CMake wraps the message over lines: join them before looking for it.
    tr -s ' \n' ' ' <<<"$out" | grep -q "built without the CUDA backend" ||
      { echo "$out" >&2; echo "test.sh: COMPONENTS cuda failed without saying why" >&2; exit 1; }
    echo "COMPONENTS cuda: refused (built without the CUDA backend), as it should be"
  fi
fi
if has pytest; then
  banner "pytest: the CLI against cc3d, OpenCV and scikit-image"
  CCLABEL_CLI="$root/build/release/src/cli/cclabel" run_pytest -q tests/python
fi
if has python; then
  banner "python: pip wheel ., installed into fresh venvs"
  # The CMake build folder (build/python/<tag>, pyproject.toml) is kept, so a second run recompiles
  # only what changed.
  rm -rf build/wheel build/venv build/venv-peers
  CMAKE_BUILD_PARALLEL_LEVEL="$jobs" PIP_ROOT_USER_ACTION=ignore \
    python3 -m pip wheel -q . -w build/wheel --no-build-isolation --no-deps
  wheel=$(echo build/wheel/cclabel-*.whl)
  # 1. A venv with nothing in it: pip resolves the wheel's dependencies (NumPy only); the package
  #    imports from the venv, outside the source tree, and its doctests pass.
  python3 -m venv build/venv
  build/venv/bin/python -m pip install -q --disable-pip-version-check "$wheel"
  (cd build/venv && bin/python - <<'EOF'
import doctest, importlib.metadata as md, os, sys
import numpy as np
import cclabel
venv = os.path.realpath(sys.prefix)
assert os.path.realpath(cclabel.__file__).startswith(venv + os.sep), f"cclabel from {cclabel.__file__}"
others = sorted(d.metadata["Name"].lower() for d in md.distributions())
assert set(others) - {"pip", "setuptools"} == {"cclabel", "numpy"}, f"installed with the wheel: {others}"
failures, tried = doctest.testmod(cclabel, extraglobs={"np": np}, optionflags=doctest.NORMALIZE_WHITESPACE)
assert tried > 0 and failures == 0, f"doctests: {failures} of {tried} failed"
assert cclabel.__version__ == md.version("cclabel"), f"__version__ {cclabel.__version__} != wheel {md.version('cclabel')}"
print(f"fresh venv: cclabel {md.version('cclabel')} with only {others}; {tried} doctest examples passed")
EOF
  )
  # 2. The package's tests against the peers (cc3d, OpenCV, scikit-image from the system), in a venv
  #    that sees the system's packages; the wheel's cclabel must be the one imported.
  python3 -m venv --system-site-packages build/venv-peers
  build/venv-peers/bin/python -m pip install -q --disable-pip-version-check --no-deps "$wheel"
  build/venv-peers/bin/python -c "import cclabel, os, sys
assert os.path.realpath(cclabel.__file__).startswith(os.path.realpath(sys.prefix) + os.sep), cclabel.__file__
print('peer venv: cclabel from', cclabel.__file__)"
  # 3. The sdist (the PEP 517 hook): a wheel built from it alone (CPU only, to keep CI short)
  #    labels as cc3d does, so the sdist carries every file a build needs.
  rm -rf build/sdist build/sdist-site
  python3 -c "import scikit_build_core.build as b; b.build_sdist('build/sdist')" >/dev/null
  CMAKE_BUILD_PARALLEL_LEVEL="$jobs" PIP_ROOT_USER_ACTION=ignore python3 -m pip wheel -q --no-build-isolation \
    --no-deps -w build/sdist --config-settings=cmake.define.CCLABEL_ENABLE_CUDA=OFF \
    --config-settings=build-dir="$root/build/sdist-build" build/sdist/cclabel-*.tar.gz
  PIP_ROOT_USER_ACTION=ignore python3 -m pip install -q --no-deps --target build/sdist-site build/sdist/cclabel-*.whl
  PYTHONPATH="$root/build/sdist-site" python3 - <<'EOF'
import os, numpy as np, cc3d, cclabel
assert os.path.realpath(cclabel.__file__).startswith(os.path.realpath("build/sdist-site") + os.sep), cclabel.__file__
img = np.random.default_rng(5).integers(0, 3, (61, 47)).astype(np.uint8)
for conn in (4, 8):
    assert np.array_equal(cclabel.label(img, connectivity=conn, background=0),
                          cc3d.connected_components(img, connectivity=conn))
print("sdist: a wheel built from it alone labels as cc3d does")
EOF
  PATH="$root/build/venv-peers/bin:$PATH" CCLABEL_PYTHON_REQUIRED=1 CCLABEL_CLI="$root/build/release/src/cli/cclabel" \
    run_pytest -q -p no:cacheprovider tests/python/test_package.py tests/python/test_regions_package.py \
    tests/python/test_dtypes_package.py tests/python/test_graph.py tests/python/test_migration_doc.py \
    tests/python/test_dask.py tests/python/test_dtypes_dask.py tests/python/test_volume_regions.py \
    tests/python/test_dask_tolerance.py tests/python/test_dask_adjacency.py tests/python/test_dask_volume.py \
    tests/python/test_adjacency_volume.py tests/python/test_reused_outputs.py tests/python/test_slabs.py \
    tests/python/test_tolerance_calls.py tests/python/test_verify.py tests/python/test_volume.py \
    tests/python/test_volume_regions_rgb.py tests/python/test_volume_tolerance_typed.py \
    tests/python/test_dask_volume_tolerance.py tests/python/test_dask_volume_gpu.py \
    tests/python/test_tolerance_typed_gpu.py tests/python/test_volume_adjacency_gpu.py tests/python/test_volume_gpu.py \
    tests/python/test_volume_regions_gpu.py tests/python/test_volume_tolerance_gpu.py
fi
if has docs; then
  banner "docs: the Sphinx site (warnings as errors), doctests of docs/ and the README, the docs' examples"
  # The package from the wheel (python stage), the tool from the release build, the C++ examples
  # against the installed package (consumer stage).
  PATH="$root/build/venv-peers/bin:$PATH" CCLABEL_CLI="$root/build/release/src/cli/cclabel" scripts/docs.sh
  PATH="$root/build/venv-peers/bin:$PATH" run_pytest -q -p no:cacheprovider --doctest-glob='*.md' docs README.md
  PATH="$root/build/venv-peers/bin:$PATH" CCLABEL_PYTHON_REQUIRED=1 CCLABEL_CLI="$root/build/release/src/cli/cclabel" \
    CCLABEL_PREFIX="$root/build/install" run_pytest -q -p no:cacheprovider tests/python/test_docs_examples.py
fi
if has asan; then
  banner "AddressSanitizer + UndefinedBehaviorSanitizer"
  configure build/asan -DCMAKE_BUILD_TYPE=RelWithDebInfo -DCCLABEL_SANITIZE=address,undefined \
    -DCCLABEL_ENABLE_CUDA=OFF -DCCLABEL_BUILD_BENCH=OFF -DCCLABEL_BUILD_CLI=ON
  cmake --build build/asan -j"$jobs"
  ASAN_OPTIONS=detect_leaks=1 UBSAN_OPTIONS=print_stacktrace=1 \
    ctest --test-dir build/asan --output-on-failure --no-tests=error -j"$jobs"
fi
if has tsan; then
  banner "ThreadSanitizer: the threaded labeller"
  configure build/tsan -DCMAKE_BUILD_TYPE=RelWithDebInfo -DCCLABEL_SANITIZE=thread \
    -DCCLABEL_ENABLE_CUDA=OFF -DCCLABEL_BUILD_BENCH=OFF -DCCLABEL_BUILD_CLI=OFF
  # Only the tests labelled cpu run here, so only their binary is built (not the emulator's).
  cmake --build build/tsan -j"$jobs" --target cclabel_tests
  # Not the adversarial pictures (Cases/*: 24 s in the release build, several minutes here): they
  # test the labels, which the release and ASan stages check, on the same threaded code that the
  # LabelCpu, Tolerance and concurrency suites drive here.
  TSAN_OPTIONS=halt_on_error=1 ctest --test-dir build/tsan --output-on-failure --no-tests=error -j"$jobs" -L cpu \
    -E '^Cases/'
fi
if has fuzz; then
  banner "libFuzzer: labeller and decoders"
  configure build/fuzz -DCMAKE_BUILD_TYPE=RelWithDebInfo -DCMAKE_C_COMPILER=clang -DCMAKE_CXX_COMPILER=clang++ \
    -DCCLABEL_FUZZ=ON -DCCLABEL_ENABLE_CUDA=OFF -DCCLABEL_BUILD_BENCH=OFF -DCCLABEL_BUILD_CLI=ON
  cmake --build build/fuzz -j"$jobs" --target fuzz_label fuzz_decode
  # fuzz TARGET SECONDS SEED...: a run from a scratch copy of the seeds. A unit slower than 5 s
  # fails the stage (a small file must never stall a decoder, issue 24).
  fuzz() {
    local target=$1 seconds=$2 work
    shift 2
    work=$(mktemp -d)
    cp -r "$@" "$work/"
    "build/fuzz/tests/fuzz/$target" -max_total_time="$seconds" -timeout=5 -rss_limit_mb=2048 \
      -max_len=1048576 -print_final_stats=1 "$work" 2>&1 | tail -n 5
    rm -rf "$work"
  }
  fuzz_seconds=${CCLABEL_FUZZ_SECONDS:-60}
  fuzz fuzz_label "$fuzz_seconds" tests/fuzz/corpus_label/.
  # The decoders' minute in two runs of fuzz_decode: the PDF seeds apart, for a quarter of it. A PDF
  # page forks a renderer (about 10 ms a unit against 0.3 ms for the other formats), and from one
  # corpus the PDF units took nearly all of the minute (65 units a second instead of 3,500).
  pdf_seconds=$(((fuzz_seconds + 3) / 4))
  fuzz fuzz_decode $((fuzz_seconds > pdf_seconds ? fuzz_seconds - pdf_seconds : 1)) \
    $(find tests/fuzz/corpus_decode -maxdepth 1 -type f ! -name 'pdf_*')
  fuzz fuzz_decode "$pdf_seconds" tests/fuzz/corpus_decode/pdf_*
fi
end_stage
printf '\n=== all test stages passed: %s ===\n' "$stages"
