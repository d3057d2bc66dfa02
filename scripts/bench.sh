#!/usr/bin/env bash
# Prints the bench natively and built to WASM (under Node) side by side.
#   bash scripts/bench.sh [NATIVE_BENCH] [WASM_BENCH_JS] [ITERATIONS]
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
native=${1:-$root/build/native/tests/ridgeline_bench}
wasm=${2:-$root/build/wasm/tests/ridgeline_bench.js}
n=${3:-2000}
a=$(mktemp) b=$(mktemp)
trap 'rm -f "$a" "$b"' EXIT
"$native" "$n" >"$a"
node --no-experimental-fetch "$wasm" "$n" >"$b"
python3 - "$a" "$b" <<'PY'
import re, sys
na = open(sys.argv[1]).read().splitlines()
wa = open(sys.argv[2]).read().splitlines()
print(na[0].replace("ridgeline bench", "ridgeline bench, native vs WASM (Node)"))
print(f"  {'':62s} {'native':>12s} {'wasm':>12s} {'wasm/native':>11s}")
num = re.compile(r"^(.*?)\s+([0-9.]+) (us|ms)/call$")
for x, y in zip(na[1:], wa[1:]):
    mx, my = num.match(x), num.match(y)
    if not mx or not my:
        print(x)
        continue
    vx, vy = float(mx.group(2)), float(my.group(2))
    print(f"  {mx.group(1).strip():62s} {vx:9.2f} {mx.group(3)}/call {vy:7.2f} {my.group(3)}/call {vy / vx if vx else 0:10.2f}x")
    if "per layout" in x and mx.group(3) == "us" and vx > 0 and vy > 0:
        print(f"  {'  = layouts per second':62s} {1e6 / vx / 1e6:8.2f} M/s  {1e6 / vy / 1e6:8.2f} M/s")
PY
