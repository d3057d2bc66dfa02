#!/usr/bin/env bash
# Installs what ridgeline needs on Debian bookworm, skipping what is present (idempotent):
# Debian packages (compiler, CMake, Catch2, nlohmann_json, Emscripten, Chromium) and the
# Dear ImGui sources from Debian's `imgui` source package into third_party/ (not in git).
#   --site  only what the static page needs (CMake, Emscripten, nlohmann_json, python3 to
#           serve, a UI font, the Dear ImGui sources): what scripts/serve.sh installs.
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)

SUDO=""
if [ "$(id -u)" != 0 ]; then SUDO="sudo"; fi

recommends=()
if [ "${1:-}" = "--site" ]; then
  pkgs=(cmake make nlohmann-json3-dev emscripten python3 xz-utils fonts-liberation)
  # What the page needs only: not llvm-14-dev, numpy and the rest Debian recommends (about
  # 300 MB installed that a first page would wait for).
  recommends=(--no-install-recommends)
else
  pkgs=(g++ cmake make catch2 nlohmann-json3-dev emscripten chromium python3 xz-utils
    fonts-liberation clang libclang-rt-14-dev) # clang + libFuzzer and sanitizer runtimes: fuzz.sh
fi
need=()
for p in "${pkgs[@]}"; do
  dpkg -s "$p" >/dev/null 2>&1 || need+=("$p")
done
updated=0
if [ ${#need[@]} -gt 0 ]; then
  echo "install: apt-get install ${need[*]}"
  $SUDO apt-get update -qq
  updated=1
  DEBIAN_FRONTEND=noninteractive $SUDO apt-get install -y -qq "${recommends[@]}" "${need[@]}" >/dev/null
fi

# Dear ImGui: libimgui-dev has no .cpp files usable for WASM; take the source package.
if [ ! -f "$root/third_party/imgui/imgui.cpp" ]; then
  if ! grep -rqsE '^(Types: deb-src|deb-src )' /etc/apt/sources.list /etc/apt/sources.list.d/; then
    # Enable source packages by copying the machine's own Debian entry (never a typed host).
    if [ -f /etc/apt/sources.list.d/debian.sources ]; then
      awk 'BEGIN{RS="";ORS="\n\n"} /Suites: bookworm bookworm-updates/' \
        /etc/apt/sources.list.d/debian.sources | sed 's/^Types: deb$/Types: deb-src/' |
        $SUDO tee /etc/apt/sources.list.d/ridgeline-src.sources >/dev/null
    else
      grep -E '^deb ' /etc/apt/sources.list | grep -v security | sed 's/^deb /deb-src /' |
        $SUDO tee /etc/apt/sources.list.d/ridgeline-src.list >/dev/null
    fi
    updated=0
  fi
  [ "$updated" = 1 ] || $SUDO apt-get update -qq
  mkdir -p "$root/third_party/download"
  (cd "$root/third_party/download" && apt-get source --download-only imgui >/dev/null 2>&1 &&
    tar xf imgui_*.orig.tar.xz)
  src=$(ls -d "$root"/third_party/download/imgui-*/ | head -n 1)
  rm -rf "$root/third_party/imgui"
  cp -r "$src" "$root/third_party/imgui"
  echo "install: Dear ImGui sources in third_party/imgui ($(basename "$src"))"
fi
