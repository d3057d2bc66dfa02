#!/usr/bin/env bash
# Installs, builds and runs every test: the native Catch2 suite, the same suite as WASM
# under Node, and the browser end-to-end test (all registered with CTest).
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
bash "$root/scripts/install.sh"
bash "$root/scripts/build.sh"
cd "$root/build/native"
ctest --output-on-failure -j "${JOBS:-$(nproc)}"
