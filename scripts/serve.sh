#!/usr/bin/env bash
# Installs what the page needs, builds only the page (the WebAssembly target ridgeline_app,
# which writes build/wasm/site/) and serves it on 127.0.0.1 (PORT, default 8080). The CLI,
# the native and WASM test suites and the bench are left for scripts/build.sh.
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
cd "$root"
bash scripts/install.sh --site
jobs=${JOBS:-$(nproc)}

# Emscripten 3.1.6 on Debian needs Debian's node modules (acorn) on NODE_PATH.
export NODE_PATH=/usr/share/nodejs${NODE_PATH:+:$NODE_PATH}
if [ ! -f build/wasm/CMakeCache.txt ]; then
  # Compiled at -O3 as always; only the post-link passes run at -O1 (wasm-opt and the JS
  # minifier took ~50 of a cold start's seconds on 2 cores for a page served locally).
  emcmake cmake -S . -B build/wasm -DCMAKE_BUILD_TYPE=Release \
    -DCMAKE_EXE_LINKER_FLAGS_RELEASE=-O1 \
    -DRIDGELINE_IMGUI_DIR="$root/third_party/imgui" >/dev/null
fi
cmake --build build/wasm -j "$jobs" --target ridgeline_app
echo "serve: built the page only; not built: the CLI, the test suites and the bench" \
  "(bash scripts/build.sh, or bash scripts/test.sh to build and run every test)"
port=${PORT:-8080}
echo "ridgeline: serving http://127.0.0.1:$port/ (Ctrl-C to stop)"
exec python3 -m http.server "$port" --bind 127.0.0.1 --directory "$root/build/wasm/site"
