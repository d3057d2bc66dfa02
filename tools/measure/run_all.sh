#!/usr/bin/env bash
# Runs the four single-GPU measurements into one directory and says what to run next.
#
#   OUT=results tools/measure/run_all.sh [--quick] [--device cuda:0] [--warmup N] [--repeats N]
#
# OUT      output directory (default: measure-<host>-<date>); it receives
#            gemm.csv, attention.csv, elementwise.csv, layer_profile.csv
#            and each script's stdout (GPU, versions, command line, tables) as <name>.log
# PYTHON   the Python with torch (default: python3)
# BASE     the ridgeline hardware preset to calibrate from (default: guessed from the GPU name)
# The options are passed to all four scripts, so only the common ones fit: --quick,
# --device, --warmup, --repeats. Run a script alone for its own options (see README.md).
#
# Expected run time on an H100: about 5 minutes (--quick: about 2). nccl-tests (collectives, the
# .txt files) is a separate step, nccl.sh, as it needs every GPU of the node or several nodes.
set -uo pipefail

HERE=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
PYTHON=${PYTHON:-python3}
OUT=${OUT:-measure-$(hostname -s 2>/dev/null || echo host)-$(date +%Y%m%d-%H%M%S)}
mkdir -p "$OUT" || exit 1

FAILED=()
for name in gemm attention elementwise layer_profile; do
  case "$name" in
    layer_profile) script=layer_profile.py ;;
    *) script=${name}_sweep.py ;;
  esac
  echo "== $script -> $OUT/$name.csv"
  if ! "$PYTHON" "$HERE/$script" --out "$OUT/$name.csv" "$@" 2>&1 | tee "$OUT/$name.log"; then
    FAILED+=("$script")
    echo "== $script failed (see $OUT/$name.log); going on with the others"
  fi
done

# The hardware preset: BASE if set, else from the GPU name the GEMM sweep printed.
if [ -z "${BASE:-}" ]; then
  gpu=$(grep -m1 '^# gpu:' "$OUT/gemm.log" 2>/dev/null || true)
  case "$gpu" in
    *H200*) BASE=h200 ;;
    *H800*) BASE=h800 ;;
    *H100*) BASE=h100-sxm ;;
    *B200*) BASE=b200 ;;
    *A100*80GB*) BASE=a100-80gb ;;
    *A100*) BASE=a100-40gb ;;
    *) BASE=h100-sxm ;;
  esac
fi

echo
echo "== results in $OUT:"
ls -l "$OUT"/*.csv 2>/dev/null || echo "(no CSV written)"
[ ${#FAILED[@]} -eq 0 ] || echo "== failed: ${FAILED[*]}"
echo
echo "== next: collective bandwidth with nccl-tests, into the same directory (one node; add --hosts h1,h2 for two):"
echo "   $HERE/nccl.sh --out $OUT /path/to/nccl-tests"
echo "== then calibrate (the base preset was guessed from the GPU name, set BASE= to change it;"
echo "   leave out $OUT/*.txt if you have no nccl-tests output):"
echo "   ridgeline calibrate $OUT/gemm.csv $OUT/attention.csv $OUT/elementwise.csv $OUT/nccl_*.txt \\"
echo "       --base $BASE --out calibrated/"
echo "   ($OUT/layer_profile.csv is for reading beside ridgeline's layer breakdown, not a fit input)"
[ ${#FAILED[@]} -eq 0 ]
