#!/usr/bin/env bash
# NCCL collective bandwidth with nccl-tests, on one node and across nodes -> nccl_*.txt
#
# Runs all_reduce_perf, all_gather_perf, reduce_scatter_perf, alltoall_perf and sendrecv_perf
# from 8 B to 8 GB (doubling), each one's stdout saved as it is (`| tee`) to
#   OUT/nccl_<collective>_1node.txt    one node, one process driving all its GPUs (-g 8)
#   OUT/nccl_<collective>_<N>node.txt  N nodes (--hosts), one MPI rank per GPU (-g 1)
# `ridgeline calibrate` reads these files (the nccl-tests table: size, time, algbw, busbw).
#
# This script downloads nothing. nccl-tests is NVIDIA's, at https://github.com/NVIDIA/nccl-tests;
# clone it yourself on a machine that can reach GitHub, copy it to the cluster, then build it
# with MPI (needed for the multi-node runs), here or with --build:
#   make -C /path/to/nccl-tests MPI=1 MPI_HOME=/path/to/mpi [CUDA_HOME=...] [NCCL_HOME=...]
# The binaries land in /path/to/nccl-tests/build/.
#
# Usage:
#   tools/measure/nccl.sh [options] NCCL_TESTS_DIR
#     NCCL_TESTS_DIR      the nccl-tests checkout (binaries in NCCL_TESTS_DIR/build/)
#   options:
#     --hosts h1,h2       run the multi-node tests across these hosts too (OpenMPI mpirun -H)
#     --gpus N            GPUs per node (default 8)
#     --out DIR           where the .txt files go (default: current directory)
#     --max-bytes SIZE    largest message, nccl-tests syntax (default 8G)
#     --only LIST         a subset: all_reduce,all_gather,reduce_scatter,alltoall,sendrecv
#     --mpirun-args "..." extra mpirun arguments (e.g. "--mca btl_tcp_if_include eth0")
#     --build             run `make MPI=1` in NCCL_TESTS_DIR first (MPI_HOME, CUDA_HOME,
#                         NCCL_HOME from the environment are passed on when set)
#     --dry-run           print the commands, run nothing
#   Environment: NCCL_TESTS_ARGS is appended to every test (e.g. "-w 5 -n 50" or "-c 0");
#   NCCL_* variables are forwarded to the MPI ranks (-x).
#
# Examples:
#   tools/measure/nccl.sh --dry-run --hosts node1,node2 ~/nccl-tests
#   tools/measure/nccl.sh --out results ~/nccl-tests                    # one node
#   tools/measure/nccl.sh --out results --hosts node1,node2 ~/nccl-tests  # and two nodes
# Each test takes from seconds to about a minute; the whole set a few minutes per node count.
set -euo pipefail

usage() { sed -n '2,/^set -euo/p' "$0" | sed '$d; s/^# \{0,1\}//'; exit "${1:-0}"; }

HOSTS="" GPUS=8 OUT="." MAX_BYTES="8G" DRY_RUN=0 BUILD=0 MPIRUN_ARGS=""
ONLY="all_reduce,all_gather,reduce_scatter,alltoall,sendrecv"
NCCL_TESTS_DIR=""
while [ $# -gt 0 ]; do
  case "$1" in
    --hosts) HOSTS="$2"; shift 2 ;;
    --gpus) GPUS="$2"; shift 2 ;;
    --out) OUT="$2"; shift 2 ;;
    --max-bytes) MAX_BYTES="$2"; shift 2 ;;
    --only) ONLY="$2"; shift 2 ;;
    --mpirun-args) MPIRUN_ARGS="$2"; shift 2 ;;
    --build) BUILD=1; shift ;;
    --dry-run) DRY_RUN=1; shift ;;
    -h|--help) usage 0 ;;
    -*) echo "error: unknown option $1" >&2; usage 2 ;;
    *) [ -z "$NCCL_TESTS_DIR" ] || { echo "error: one NCCL_TESTS_DIR only" >&2; exit 2; }
       NCCL_TESTS_DIR="$1"; shift ;;
  esac
done
[ -n "$NCCL_TESTS_DIR" ] || { echo "error: give the nccl-tests directory" >&2; usage 2; }
case "$GPUS" in ''|*[!0-9]*|0) echo "error: --gpus takes a positive integer" >&2; exit 2 ;; esac
BIN="$NCCL_TESTS_DIR/build"

# Prints a command (quoted so that it can be pasted back), and runs it unless --dry-run.
# A test that fails is reported and the others still run; the exit status says so at the end.
FAILED=0
run() {
  local out="$1"; shift
  printf '+'; printf ' %q' "$@"; printf ' | tee %q\n' "$out"
  [ "$DRY_RUN" = 1 ] && return 0
  if ! "$@" | tee "$out"; then
    echo "# failed: $*" >&2
    FAILED=1
  fi
}

if [ "$BUILD" = 1 ]; then
  make_cmd=(make -C "$NCCL_TESTS_DIR" MPI=1)
  [ -n "${MPI_HOME:-}" ] && make_cmd+=("MPI_HOME=$MPI_HOME")
  [ -n "${CUDA_HOME:-}" ] && make_cmd+=("CUDA_HOME=$CUDA_HOME")
  [ -n "${NCCL_HOME:-}" ] && make_cmd+=("NCCL_HOME=$NCCL_HOME")
  printf '+'; printf ' %q' "${make_cmd[@]}"; printf '\n'
  [ "$DRY_RUN" = 1 ] || "${make_cmd[@]}"
fi

IFS=',' read -r -a TESTS <<< "$ONLY"
for t in "${TESTS[@]}"; do
  case "$t" in all_reduce|all_gather|reduce_scatter|alltoall|sendrecv) ;;
    *) echo "error: unknown test $t" >&2; exit 2 ;; esac
  if [ "$DRY_RUN" = 0 ] && [ ! -x "$BIN/${t}_perf" ]; then
    echo "error: $BIN/${t}_perf not found: build nccl-tests first (make MPI=1, or --build)" >&2
    exit 1
  fi
done
[ "$DRY_RUN" = 1 ] || mkdir -p "$OUT"
read -r -a EXTRA <<< "${NCCL_TESTS_ARGS:-}"
SWEEP=(-b 8 -e "$MAX_BYTES" -f 2)

echo "# nccl-tests from $BIN, $GPUS GPUs per node, messages 8 B .. $MAX_BYTES, output in $OUT"

# One node: one process, -g GPUS threads' worth of devices.
for t in "${TESTS[@]}"; do
  run "$OUT/nccl_${t}_1node.txt" "$BIN/${t}_perf" "${SWEEP[@]}" -g "$GPUS" ${EXTRA[@]+"${EXTRA[@]}"}
done

# Across nodes: one MPI rank per GPU (OpenMPI: -N ranks per node, -H host:slots).
if [ -n "$HOSTS" ]; then
  IFS=',' read -r -a HOST_LIST <<< "$HOSTS"
  NODES=${#HOST_LIST[@]}
  HOST_SLOTS=""
  for h in "${HOST_LIST[@]}"; do HOST_SLOTS="${HOST_SLOTS:+$HOST_SLOTS,}$h:$GPUS"; done
  FORWARD=(-x LD_LIBRARY_PATH -x PATH)
  for v in $(compgen -e | grep '^NCCL_' | grep -vx 'NCCL_TESTS_ARGS' || true); do FORWARD+=(-x "$v"); done
  read -r -a MPI_EXTRA <<< "$MPIRUN_ARGS"
  for t in "${TESTS[@]}"; do
    run "$OUT/nccl_${t}_${NODES}node.txt" \
      mpirun -np $((NODES * GPUS)) -N "$GPUS" -H "$HOST_SLOTS" --bind-to none \
      "${FORWARD[@]}" ${MPI_EXTRA[@]+"${MPI_EXTRA[@]}"} \
      "$BIN/${t}_perf" "${SWEEP[@]}" -g 1 ${EXTRA[@]+"${EXTRA[@]}"}
  done
fi

if [ "$DRY_RUN" = 1 ]; then
  echo "# dry run: nothing was run"
else
  echo "# files:"; ls -1 "$OUT"/nccl_*.txt
fi
exit "$FAILED"
