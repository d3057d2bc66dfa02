#!/usr/bin/env bash
# Installs, builds and serves the web page on 127.0.0.1 (PORT, default 8080).
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
bash "$root/scripts/install.sh"
bash "$root/scripts/build.sh"
port=${PORT:-8080}
echo "ridgeline: serving http://127.0.0.1:$port/ (Ctrl-C to stop)"
exec python3 -m http.server "$port" --bind 127.0.0.1 --directory "$root/build/wasm/site"
