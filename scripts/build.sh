#!/usr/bin/env bash
# Builds the WebAssembly side (page, WASM test suite) into build/wasm and the native side
# (CLI, Catch2 suite, bench) into build/native. Incremental: fast when nothing changed.
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
cd "$root"
jobs=${JOBS:-$(nproc)}
werror=OFF
if [ "${CI:-}" = "true" ]; then werror=ON; fi

# Emscripten 3.1.6 on Debian needs Debian's node modules (acorn) on NODE_PATH.
export NODE_PATH=/usr/share/nodejs${NODE_PATH:+:$NODE_PATH}
if [ ! -f build/wasm/CMakeCache.txt ]; then
  emcmake cmake -S . -B build/wasm -DCMAKE_BUILD_TYPE=Release -DRIDGELINE_WERROR=$werror \
    -DRIDGELINE_IMGUI_DIR="$root/third_party/imgui" >/dev/null
fi
cmake --build build/wasm -j "$jobs"

if [ ! -f build/native/CMakeCache.txt ] || ! grep -q "RIDGELINE_WASM_BUILD_DIR:PATH=$root/build/wasm" build/native/CMakeCache.txt; then
  cmake -S . -B build/native -DCMAKE_BUILD_TYPE=Release -DRIDGELINE_WERROR=$werror \
    -DRIDGELINE_WASM_BUILD_DIR="$root/build/wasm" >/dev/null
fi
cmake --build build/native -j "$jobs"
echo "build: CLI build/native/shell/ridgeline; static site build/wasm/site/"
