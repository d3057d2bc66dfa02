#!/usr/bin/env bash
# The command line as a user meets it: help, exit codes, one-line errors naming the field,
# JSON errors on stdout with --json, the URL codec both ways.
# usage: cli_test.sh PATH_TO_RIDGELINE
set -u
rl=$1
fails=0
passes=0
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT

check() { # name, expected exit code, command...
  local name=$1 want=$2
  shift 2
  "$@" >"$tmp/out" 2>"$tmp/err"
  local got=$?
  if [ "$got" != "$want" ]; then
    echo "FAIL $name: exit $got, wanted $want"; cat "$tmp/err"; fails=$((fails + 1)); return 1
  fi
  passes=$((passes + 1))
}
expect_in() { # name, file, text
  if ! grep -qF -- "$3" "$2"; then
    echo "FAIL $1: '$3' not in $(basename "$2"):"; cat "$2"; fails=$((fails + 1)); return 1
  fi
  passes=$((passes + 1))
}

check help 0 "$rl" --help && expect_in help "$tmp/out" "ridgeline <command>"
for c in estimate url presets; do
  check "help $c" 0 "$rl" "$c" --help && expect_in "help $c" "$tmp/out" "usage: ridgeline $c"
done
check "no command" 2 "$rl"
check "unknown command" 2 "$rl" fly && expect_in "unknown command" "$tmp/err" 'unknown command "fly"'
check "unknown option" 2 "$rl" estimate llama3-70b-h100-1024 --fast &&
  expect_in "unknown option" "$tmp/err" "unknown option --fast"
# one command table: every option the help shows is one the parser takes (plan --headroom was
# listed and refused), and a near miss is named
check "did you mean command" 2 "$rl" estimte llama3-70b-h100-1024 &&
  expect_in "did you mean command" "$tmp/err" 'unknown command "estimte" (did you mean "estimate"?)'
check "did you mean option" 2 "$rl" plan llama3-70b-h100-1024 --hedroom 4 &&
  expect_in "did you mean option" "$tmp/err" '(did you mean "--headroom"?)'
check "plan --headroom" 0 "$rl" plan llama3-70b-h100-1024 --headroom 10 --top 2 --json &&
  expect_in "plan --headroom" "$tmp/out" '"headroom": 10000000000.0'
check "help plan usage" 0 "$rl" plan --help &&
  expect_in "help plan usage" "$tmp/out" "usage: ridgeline plan CFG [--top N] [--objective O] [--headroom GB]"
check "url decode pin" 0 "$rl" url --decode '?scenario=llama3-70b-h100-1024&parallel.tp=4&pin=scenario%3Dllama3-70b-h100-1024' &&
  expect_in "url decode pin" "$tmp/err" "url --decode 'scenario=llama3-70b-h100-1024'"
check "export sglang" 0 "$rl" export llama3-70b-h100-serve --format sglang &&
  expect_in "export sglang" "$tmp/out" "python -m sglang.launch_server"

check "estimate table" 0 "$rl" estimate llama3-70b-h100-1024 &&
  expect_in "estimate table" "$tmp/out" "70,553,706,496"
check "estimate json" 0 "$rl" estimate llama3-70b-h100-1024 --json &&
  expect_in "estimate json" "$tmp/out" '"activations_layers"'

bad='{"model": "llama3-70b", "hardware": "h100-sxm", "cluster": {"base": "dgx-h100", "devices": 8},
 "workload": {"mode": "train", "global_batch": 8, "seq_len": 1024}, "parallel": {"tp": 3, "dp": 1}}'
check "bad layout" 2 "$rl" estimate "$bad" &&
  expect_in "bad layout" "$tmp/err" "parallel.tp: 3 does not divide heads 64"
[ "$(wc -l <"$tmp/err")" = 1 ] || { echo "FAIL bad layout: stderr is not one line"; fails=$((fails + 1)); }
check "bad layout json" 2 "$rl" estimate "$bad" --json &&
  expect_in "bad layout json" "$tmp/out" '{"error":{"message":"3 does not divide heads 64","path":"parallel.tp"}}'
echo '{"model": "llama3-70b", "hardware": "h100-sxm", ' >"$tmp/broken.json"
check "malformed file" 2 "$rl" estimate "$tmp/broken.json" &&
  expect_in "malformed file" "$tmp/err" "broken.json: malformed JSON"
check "missing file" 2 "$rl" estimate /nonexistent.json &&
  expect_in "missing file" "$tmp/err" "neither a readable file nor a scenario preset"

check "url encode" 0 "$rl" url '{"model": {"base": "llama3-70b", "layers": 40}, "hardware": "h100-sxm", "workload": {"mode": "train", "global_batch": 8, "seq_len": 1024}}' &&
  expect_in "url encode" "$tmp/out" "model=llama3-70b&model.layers=40&hardware=h100-sxm"
q=$(cat "$tmp/out")
check "url decode" 0 "$rl" url --decode "http://127.0.0.1:8080/?$q" &&
  expect_in "url decode" "$tmp/out" '"layers": 40'
check "url decode resolved" 0 "$rl" url --decode "?$q" --resolved &&
  expect_in "url decode resolved" "$tmp/out" '"hidden": 8192'
check "url bad" 2 "$rl" url --decode "?parallel.tp=1&parallel.tp=2" &&
  expect_in "url bad" "$tmp/err" "parallel.tp: given twice in the URL"
check "url invalid config" 2 "$rl" url --decode "?model=llama9&hardware=h100-sxm" &&
  expect_in "url invalid config" "$tmp/err" 'model: unknown model preset "llama9"'

check presets 0 "$rl" presets && expect_in presets "$tmp/out" "llama3-70b"
# the Blackwell presets (issue 22/23): chips and the NVL72 racks
for p in b300 gb200 gb300 dgx-b200 gb200-nvl72 gb300-nvl72; do expect_in presets "$tmp/out" " $p"; done
check "preset fp4" 0 "$rl" presets hardware gb300 && expect_in "preset fp4" "$tmp/out" '"fp4": 1.5e+16'
check "preset one" 0 "$rl" presets hardware h100-sxm && expect_in "preset one" "$tmp/out" '"hbm_bw"'
check "preset kind" 2 "$rl" presets gpus && expect_in "preset kind" "$tmp/err" 'unknown preset kind "gpus"'
check "compare-sp" 0 "$rl" estimate llama3-70b-h100-1024 --compare-sp --degree 8 &&
  expect_in "compare-sp" "$tmp/out" "Megatron-SP"

check "plan" 0 "$rl" plan '{"model": "llama2-7b", "hardware": "h100-sxm", "cluster": {"base": "dgx-h100", "devices": 16, "inter_node": {"bw": 5e10}}, "workload": {"mode": "train", "global_batch": 64, "seq_len": 4096}}' --top 3 &&
  expect_in "plan" "$tmp/out" "layouts enumerated"
check "plan top bad" 2 "$rl" plan llama3-70b-h100-1024 --top x && expect_in "plan top bad" "$tmp/err" "--top: expected a positive integer"
check "validate" 0 "$rl" validate && expect_in "validate" "$tmp/out" "megatron-core-177b-h100"
check "collective" 0 "$rl" collective dgx-h100-1024 --op allreduce --bytes 1e9 --group 64 &&
  expect_in "collective" "$tmp/out" "hierarchical"
check "collective bad op" 2 "$rl" collective dgx-h100 --op bcast --bytes 1 &&
  expect_in "collective bad op" "$tmp/err" '--op: "bcast" is not one of'
check "sweep" 0 "$rl" estimate llama2-13b-v5e-infer --sweep batch && expect_in "sweep" "$tmp/out" "critical batch"
check "sweep train" 2 "$rl" estimate llama3-70b-h100-1024 --sweep batch &&
  expect_in "sweep train" "$tmp/err" "--sweep batch needs an inference workload"
check "tx8 video" 0 "$rl" tx8 sora-720m-tx8-2x2 && expect_in "tx8 video" "$tmp/out" "per step"
check "tx8 op json" 0 "$rl" tx8 '{"hardware": "tx8", "workload": {"mode": "tx8-op", "op": {"type": "gemm", "m": 4096, "k": 1152, "n": 4608, "fuse": "silu"}}}' --json &&
  expect_in "tx8 op json" "$tmp/out" '"utilization"'
check "tx8 bad op" 2 "$rl" tx8 '{"hardware": "tx8", "workload": {"mode": "tx8-op", "op": {"type": "conv"}}}' &&
  expect_in "tx8 bad op" "$tmp/err" 'workload.op.type: "conv" is not one of'
check "export" 0 "$rl" export llama3-70b-h100-1024 --format megatron && expect_in "export" "$tmp/out" "--tensor-model-parallel-size 8"
check "export bad" 2 "$rl" export llama3-70b-h100-1024 --format jax && expect_in "export bad" "$tmp/err" '--format: "jax" is not one of'
# a serving scenario: a vllm line; a training format is refused with nothing on stdout
check "export vllm" 0 "$rl" export llama3-70b-h100-serve --format vllm &&
  expect_in "export vllm" "$tmp/out" "--tensor-parallel-size 4"
check "export serve megatron" 2 "$rl" export llama3-70b-h100-serve --format megatron &&
  expect_in "export serve megatron" "$tmp/err" '--format: "megatron" writes training launches'
[ ! -s "$tmp/out" ] || { echo "FAIL export serve megatron: stdout not empty"; fails=$((fails + 1)); }
# serving: the simulation, its JSON keys (documented in the README), the rate sweep and the serving planner
check "serve" 0 "$rl" serve llama3-70b-h100-serve && expect_in "serve" "$tmp/out" "TPOT (inter-token)"
check "serve json" 0 "$rl" serve llama3-70b-h100-serve --json &&
  python3 -c 'import json,sys; j=json.load(open(sys.argv[1])); [j["latency"][k][q] for k in ("ttft","tpot","e2e") for q in ("mean","p50","p90","p99")]; j["throughput"]["output_tokens_per_s"]; j["throughput"]["requests_per_s"]; j["goodput"]; [j["memory"][k] for k in ("weights","kv_cache","total","capacity")]; [j["stats"][k] for k in ("requests","iterations","simulated_s","seconds")]' "$tmp/out" &&
  passes=$((passes + 1)) || { echo "FAIL serve json keys"; fails=$((fails + 1)); }
check "serve sweep" 0 "$rl" serve llama3-70b-h100-serve --sweep rate && expect_in "serve sweep" "$tmp/out" "SLO met"
check "serve plan json" 0 "$rl" plan llama3-70b-h100-serve --top 2 --json &&
  python3 -c 'import json,sys; j=json.load(open(sys.argv[1])); d=j["deployments"][0]; d["cost"]["per_million_tokens"]; d["replicas"]; d["instance"]["tp"]; [j["stats"][k] for k in ("candidates","evaluated","feasible","seconds","rejected")]' "$tmp/out" &&
  passes=$((passes + 1)) || { echo "FAIL serve plan keys"; fails=$((fails + 1)); }
printf 'arrival_s,prompt_len,gen_len\n# two requests\n0,2048,128\n0.1,1024,256\n' >"$tmp/trace.csv"
check "serve trace" 0 "$rl" serve llama3-70b-h100-serve --trace "$tmp/trace.csv" --json &&
  expect_in "serve trace" "$tmp/out" '"completed": 2'
printf '0,2048,128\n0.1,abc,256\n' >"$tmp/bad_trace.csv"
check "serve bad trace" 2 "$rl" serve llama3-70b-h100-serve --trace "$tmp/bad_trace.csv" &&
  expect_in "serve bad trace" "$tmp/err" 'bad_trace.csv:2: expected arrival_s,prompt_len,gen_len'
check "serve train config" 2 "$rl" serve llama3-70b-h100-1024 &&
  expect_in "serve train config" "$tmp/err" 'workload.mode: `ridgeline serve` needs mode "serve"'
check "serve bad sweep" 2 "$rl" serve llama3-70b-h100-serve --sweep batch
check "estimate serve config" 2 "$rl" estimate llama3-70b-h100-serve &&
  expect_in "estimate serve config" "$tmp/err" "mode serve is simulated by"
check "fields" 0 "$rl" fields hardware && expect_in "fields" "$tmp/out" "hardware.gemm_efficiency"
check "fields json" 0 "$rl" fields workload --json &&
  expect_in "fields json" "$tmp/out" '"vllm": "--max-num-seqs"'
check "fields bad section" 2 "$rl" fields gpus &&
  expect_in "fields bad section" "$tmp/err" 'unknown section "gpus"'
# tools/measure/layer_profile.py's own writer (no torch, no GPU) and the reader agree.
here=$(cd "$(dirname "$0")/../.." && pwd)
if command -v python3 >/dev/null; then
  check "layer profile writer" 0 python3 "$here/tools/measure/layer_profile.py" --self-test \
    --out "$tmp/layer_profile.csv" &&
    check "calibrate layer profile" 0 "$rl" calibrate "$tmp/layer_profile.csv" --base h100-sxm &&
    expect_in "calibrate layer profile" "$tmp/out" "compute overhead (one layer alone, layer profiles)"
fi
# Written presets are used by path: as a preset, as an object's base (another device count),
# and an engine under workload.engine; the closing hint names the files written.
samples="$here/tests/data/samples"
check "calibrate nccl out" 0 "$rl" calibrate "$samples/nccl_all_reduce_h100x8.txt" --base h100-sxm \
  --out "$tmp/cal" && expect_in "calibrate nccl out" "$tmp/out" "\"cluster\": \"$tmp/cal/cluster.json\""
check "cluster file as base" 0 "$rl" estimate "{\"scenario\": \"llama3-70b-h100-1024\",
  \"cluster\": {\"base\": \"$tmp/cal/cluster.json\", \"devices\": 512}}" --json &&
  expect_in "cluster file as base" "$tmp/out" '"dp": 8,' # 512 / (tp 8 x pp 8)
check "calibrate vllm out" 0 "$rl" calibrate "$samples/vllm_llama31_70b_tp8_c16.json" \
  --base llama3-70b-h100-serve --out "$tmp/eng" &&
  expect_in "calibrate vllm out" "$tmp/out" "\"workload\": {\"engine\": \"$tmp/eng/engine.json\"}"
check "engine file by path" 0 "$rl" serve "{\"scenario\": \"llama3-70b-h100-serve\",
  \"workload\": {\"requests\": 100, \"engine\": \"$tmp/eng/engine.json\"}}"
# Only regular files are read, each refused with its cause and the field that named it; a
# FIFO as a preset path blocked forever (issue 35).
mkfifo "$tmp/fifo.json" && check "fifo preset" 2 timeout 10 "$rl" estimate \
  "{\"scenario\": \"llama3-70b-h100-1024\", \"hardware\": \"$tmp/fifo.json\"}" &&
  expect_in "fifo preset" "$tmp/err" "hardware: \"$tmp/fifo.json\" is a FIFO (named pipe); only regular files are read"
ln -s "$tmp/loop_b" "$tmp/loop_a" && ln -s "$tmp/loop_a" "$tmp/loop_b" &&
  check "symlink loop" 2 "$rl" estimate "$tmp/loop_a" &&
  expect_in "symlink loop" "$tmp/err" "\"$tmp/loop_a\": a symbolic-link loop"
mkdir -p "$tmp/dir.json" && check "directory preset" 2 "$rl" estimate \
  "{\"scenario\": \"llama3-70b-h100-1024\", \"cluster\": {\"base\": \"$tmp/dir.json\"}}" &&
  expect_in "directory preset" "$tmp/err" "cluster.base: \"$tmp/dir.json\" is a directory"
check "calibrate same file twice" 2 "$rl" calibrate "$samples/elementwise_h100.csv" \
  "$samples/elementwise_h100.csv" && expect_in "calibrate same file twice" "$tmp/err" "given twice"
check "calibrate char device" 2 "$rl" calibrate /dev/zero &&
  expect_in "calibrate char device" "$tmp/err" '"/dev/zero" is a character device'
# A kernel name's escape sequences (clear screen, window title) reach no terminal raw.
printf 'kernel,bytes,seconds\ncopy,2147483648,0.00074\n\033]0;pwned\007\033[2Jx,1000000,0.001\n' \
  >"$tmp/esc.csv"
check "escapes shown" 0 "$rl" calibrate "$tmp/esc.csv" --base h100-sxm &&
  expect_in "escapes shown" "$tmp/out" '\x1b]0;pwned\x07\x1b[2Jx'
if grep -q "$(printf '\033')" "$tmp/out" "$tmp/err"; then
  echo "FAIL escapes shown: a raw ESC reached the output"; fails=$((fails + 1))
fi
check "fix unknown" 2 "$rl" calibrate "$samples/elementwise_h100.csv" --fix hardware.hbm_eficiency &&
  expect_in "fix unknown" "$tmp/err" 'did you mean "hardware.hbm_efficiency"?'
for c in plan collective validate tx8 export serve fields; do
  check "help $c" 0 "$rl" "$c" --help && expect_in "help $c" "$tmp/out" "usage: ridgeline $c"
done

echo "$passes passed, $fails failed"
[ "$fails" = 0 ]
