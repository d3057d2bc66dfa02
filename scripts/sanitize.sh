#!/usr/bin/env bash
# The native test suite (Catch2 suite, CLI checks) built with AddressSanitizer +
# UndefinedBehaviorSanitizer into build/asan, every report fatal, and run with CTest.
# Incremental: fast when nothing changed. scripts/test.sh runs it in CI (or with SANITIZE=1).
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
cd "$root"
jobs=${JOBS:-$(nproc)}
werror=OFF
if [ "${CI:-}" = "true" ]; then werror=ON; fi
if [ ! -f build/asan/CMakeCache.txt ]; then
  cmake -S . -B build/asan -DCMAKE_BUILD_TYPE=RelWithDebInfo \
    -DCMAKE_CXX_FLAGS_RELWITHDEBINFO="-O1 -g" -DRIDGELINE_SANITIZE=ON \
    -DRIDGELINE_WERROR=$werror >/dev/null
fi
cmake --build build/asan -j "$jobs" --target ridgeline ridgeline_tests
cd build/asan
export ASAN_OPTIONS=${ASAN_OPTIONS:-abort_on_error=1:detect_leaks=1}
export UBSAN_OPTIONS=${UBSAN_OPTIONS:-halt_on_error=1:print_stacktrace=1}
ctest --output-on-failure -j "$jobs"
