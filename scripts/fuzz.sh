#!/usr/bin/env bash
# Builds the libFuzzer targets of fuzz/ with clang (ASan + UBSan, every UB report fatal) into
# build/fuzz and runs each for SECONDS (default 60) on a corpus seeded from presets/,
# docs/examples/, fuzz/seeds/ and fuzz/regressions/, with the dictionaries of fuzz/.
# Exits non-zero on any crash, sanitizer report, contract breach or slow input (the
# harness's own watchdog, RL_FUZZ_SLOW_S, default 10 s: libFuzzer's -timeout can deadlock
# under ASan). Failing inputs are left in build/fuzz/findings/; copy each one (renamed) to
# fuzz/regressions/<target>/ so that the test suite replays it.
#   bash scripts/fuzz.sh [SECONDS] [TARGET...]
#   targets: estimate plan url tx8 validate hf serve trace readers calibrate export closed_loop
#   (validate is `ridgeline validate --runs FILE`: training and serving runs, closed loops too)
# Every run appends "target executions coverage features" to build/fuzz/runs.log.
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
cd "$root"
secs=${1:-60}
shift || true
all=(estimate plan url tx8 validate hf serve trace readers calibrate export closed_loop)
targets=("$@")
[ ${#targets[@]} -gt 0 ] || targets=("${all[@]}")
jobs=${JOBS:-$(nproc)}
build=build/fuzz

command -v clang++ >/dev/null || { echo "fuzz: clang++ is required" >&2; exit 2; }
# -O2: executions a second matter more here than exact stack traces (a finding is replayed
# by the test suite and can be rerun in any build).
# RL_FUZZ_NO_BUILD=1: run the binaries already built (two fuzz.sh side by side).
if [ -z "${RL_FUZZ_NO_BUILD:-}" ]; then
  CC=clang CXX=clang++ cmake -S . -B $build -DCMAKE_BUILD_TYPE=RelWithDebInfo \
    -DCMAKE_CXX_FLAGS_RELWITHDEBINFO="-O2 -g" -DRIDGELINE_FUZZ=ON >/dev/null
  cmake --build $build -j "$jobs" --target "${targets[@]/#/fuzz_}" >/dev/null
fi

# Seeds: every configuration the project ships, plus the regression inputs.
seed() { # target, files...
  local dir=$build/corpus/$1
  shift
  mkdir -p "$dir"
  for f in "$@"; do [ -f "$f" ] && cp -n "$f" "$dir/seed-$(basename "$(dirname "$f")")-$(basename "$f")"; done
  return 0
}
configs=(presets/scenarios/*.json docs/examples/*.json)
mkdir -p $build/findings
# malloc_context_size=0: no stack is unwound at every allocation (a quarter of the time of
# the tx8 searches); rerun a finding with ASAN_OPTIONS=malloc_context_size=30 for them.
export ASAN_OPTIONS=${ASAN_OPTIONS:-abort_on_error=1:detect_leaks=1:allocator_may_return_null=1:malloc_context_size=0}
export UBSAN_OPTIONS=${UBSAN_OPTIONS:-halt_on_error=1:print_stacktrace=1}
status=0
for t in "${targets[@]}"; do
  case $t in
  estimate | plan | tx8 | serve) seed "$t" "${configs[@]}" ;;
  validate) seed "$t" presets/validation/*.json fuzz/seeds/validate/* ;;
  hf) seed "$t" fuzz/seeds/hf/* presets/models/*.json ;;
  url) seed "$t" fuzz/seeds/url/* ;;
  trace) seed "$t" fuzz/seeds/trace/* ;;
  readers) seed "$t" fuzz/seeds/readers/* tests/data/samples/*.{txt,csv,json,jsonl,log} ;;
  calibrate) seed "$t" fuzz/seeds/calibrate/* fuzz/seeds/readers/* tests/data/samples/*.{txt,csv,json,jsonl,log} ;;
  export) seed "$t" fuzz/seeds/export/* ;;
  closed_loop) seed "$t" fuzz/seeds/closed_loop/* presets/scenarios/*-serve.json docs/examples/*-serve.json ;;
  esac
  seed "$t" fuzz/regressions/"$t"/*
  dict=fuzz/json.dict
  [ "$t" = url ] && dict=fuzz/url.dict
  [ "$t" = trace ] && dict=fuzz/trace.dict
  [ "$t" = calibrate ] && dict=fuzz/measure.dict
  [ "$t" = export ] && dict=fuzz/shell.dict
  # Each run logs to its own file, renamed to findings/<target>.log at its end: two runs of
  # one target side by side must not write into one file (the second's truncation left the
  # first's statistics behind a hole of NUL bytes, and its executions went uncounted).
  log=$build/findings/$t.log
  runlog=$build/findings/$t.$$.log
  rc=0
  (cd $build/findings && "../fuzz/fuzz_$t" -max_total_time="$secs" -max_len=65536 \
    -rss_limit_mb=4096 -dict="$root/$dict" -artifact_prefix="$t-" -print_final_stats=1 \
    "../corpus/$t" >"$(basename "$runlog")" 2>&1) || rc=$?
  # Counted from this run's own file before it is renamed (two runs of one target side by side
  # both rename theirs to findings/<target>.log, and read after that, one run counts twice).
  # -a: libFuzzer prints mutated dictionary entries, which may hold any byte.
  runs=$(grep -ao 'stat::number_of_executed_units: *[0-9]*' "$runlog" | grep -o '[0-9]*$' | tail -1 || true)
  cov=$(grep -ao 'cov: [0-9]* ft: [0-9]*' "$runlog" | tail -1 || true)
  mv -f "$runlog" "$log"
  echo "$t ${runs:-0} ${cov:-}" >>$build/runs.log
  if [ $rc -ne 0 ]; then
    echo "fuzz: $t FAILED (exit $rc) after ${runs:-?} runs; see $log and $build/findings/" >&2
    grep -aE "ridgeline fuzz|ERROR: |runtime error|SUMMARY" "$log" | head -5 >&2 || true
    status=1
  else
    echo "fuzz: $t ok: ${runs:-?} runs, ${cov:-}"
  fi
done
exit $status
