#!/usr/bin/env bash
# Installs, builds and runs every test: the native Catch2 suite, the same suite as WASM
# under Node, and the browser end-to-end test (all registered with CTest). In CI (CI=true,
# or SANITIZE=1) also the suite under ASan + UBSan (scripts/sanitize.sh) and a short fuzz
# run of every target (scripts/fuzz.sh, FUZZ_SECONDS each, default 20).
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
bash "$root/scripts/install.sh"
bash "$root/scripts/build.sh"
cd "$root/build/native"
ctest --output-on-failure -j "${JOBS:-$(nproc)}"
if [ "${CI:-}" = "true" ] || [ "${SANITIZE:-0}" = "1" ]; then
  bash "$root/scripts/sanitize.sh"
  bash "$root/scripts/fuzz.sh" "${FUZZ_SECONDS:-20}"
fi
