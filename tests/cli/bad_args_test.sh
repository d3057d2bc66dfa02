#!/usr/bin/env bash
# Bad command lines and hostile input at the CLI's edge (issue 13), one table row each:
# the exit code and the one stderr line (field path and reason) a user sees. Also: a
# closed or full stdout never exits 0, a directory is not a CFG, oversized and deeply
# nested files are refused before any work.
# usage: bad_args_test.sh PATH_TO_RIDGELINE
set -u
rl=$1
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
fails=0
passes=0
S=llama3-70b-h100-1024

row() { # expected exit, expected stderr text, args...
  local want=$1 text=$2
  shift 2
  "$rl" "$@" >"$tmp/out" 2>"$tmp/err"
  local got=$?
  if [ "$got" != "$want" ] || ! grep -qF -- "$text" "$tmp/err"; then
    echo "FAIL ridgeline $*: exit $got (wanted $want), stderr:"; cat "$tmp/err"
    echo "  wanted: $text"; fails=$((fails + 1)); return
  fi
  if [ "$(wc -l <"$tmp/err")" -gt 1 ]; then
    echo "FAIL ridgeline $*: more than one stderr line"; cat "$tmp/err"; fails=$((fails + 1)); return
  fi
  passes=$((passes + 1))
}

mkdir "$tmp/dir"
python3 -c "print('['*100 + ']'*100)" >"$tmp/deep.json"
python3 -c "print('{\"junk\": [' + ','.join(['0']*2500000) + ']}')" >"$tmp/big.json"
printf '{"model": "llama3-70b", "model": "llama3-8b"}' >"$tmp/dup.json"
printf '{"runs": [{"name": "a", "config": "%s", "measured": {"mfu": 1e999}}]}' $S >"$tmp/runs.json"
# issue 35: a closed loop of 1,000,000 clients, 6,000,000 units of simulation, past the limit
printf '{"runs": [{"name": "c", "config": {"model": "llama3-70b", "hardware": "h100-sxm", "cluster": "dgx-h100", "parallel": {"tp": 4}, "workload": {"mode": "serve", "concurrency": 1000000, "requests": 1000000, "prompt_len": 16, "gen_len": 4, "weight_dtype": "fp8", "kv_dtype": "fp8", "precision": "fp8"}}, "measured": {"ttft": 0.1}}]}' >"$tmp/clients.json"

row 2 '--group: expected a whole number of devices in [1, 1024], got "1.5"' collective dgx-h100-1024 --op allreduce --bytes 1e9 --group 1.5
row 2 '--stride: expected a whole number of devices in [1, 1024], got "2.5"' collective dgx-h100-1024 --op allreduce --bytes 1e9 --stride 2.5
row 2 '--group: expected a whole number of devices in [1, 1024], got "0"' collective dgx-h100-1024 --op allreduce --bytes 1e9 --group 0
row 2 '--bytes: expected a number in' collective dgx-h100-1024 --op allreduce --bytes nan
row 2 '--bytes: expected a number in' collective dgx-h100-1024 --op allreduce --bytes 1e999
row 2 '--op: "scatter" is not one of allreduce' collective dgx-h100-1024 --op scatter --bytes 1e9
row 2 "\"$tmp/dir\" is a directory; only regular files are read" estimate "$tmp/dir"
row 2 "\"$tmp/dir\" is a directory; only regular files are read" validate "$tmp/dir"
row 2 "\"$tmp/dir\" is a directory; only regular files are read" collective "$tmp/dir" --op p2p --bytes 1
row 2 "deep.json: arrays and objects nested deeper than 64 levels" estimate "$tmp/deep.json"
row 2 "bytes; the limit is 4194304 bytes (4 MiB)" estimate "$tmp/big.json"
row 2 "model: duplicate key (given twice in one object)" plan "$tmp/dup.json"
row 2 "runs[0].measured.mfu: number out of range (beyond a double's 1.8e308)" validate "$tmp/runs.json"
row 2 "runs[0].config.workload.requests: predicting these runs needs 6000001 units" validate --runs "$tmp/clients.json"
row 2 "model: number out of range (beyond a double's 1.8e308)" estimate '{"model": 1e999}'
row 2 "model: number out of range" tx8 '{"model": 1e999}'
row 2 "url: a key nested deeper than 64 levels" url --decode "model$(printf '.a%.0s' $(seq 1 100))=1"
row 2 "--top: expected a positive integer, got \"1.5\"" plan $S --top 1.5
row 2 "--top: expected a positive integer, got \"0\"" plan $S --top 0
row 2 "--top: the serving planner shows 1 to 20 deployments" plan llama3-70b-h100-serve --top 21
row 2 "--top: the serving planner shows 1 to 20 deployments" plan llama3-70b-h100-serve --top 9999
row 2 "--degree: expected a positive integer, got \"-2\"" estimate $S --compare-sp --degree -2
row 2 "--sweep takes \`batch\`" estimate llama2-13b-v5e-infer --sweep rate
row 2 "--decode needs a value" url --decode
row 2 "unknown option --top for \`estimate\`" estimate $S --top 3
row 2 "\`estimate\` takes exactly one CFG" estimate $S $S
row 2 "\`validate\` takes at most one FILE" validate a b
row 2 "cannot read \"$tmp/none.json\": no such file" validate "$tmp/none.json"
row 2 '"nonexistent" is neither a readable file nor a scenario preset' estimate nonexistent
row 2 'unknown preset kind "gpus"' presets gpus
row 2 '`export` needs --format' export $S
row 2 "hardware.time_uncertainty: 2 is out of range [0, 0.5]" estimate "{\"scenario\": \"$S\", \"hardware\": {\"base\": \"h100-sxm\", \"time_uncertainty\": 2}}"
row 2 "parallel: no layout fits" plan '{"model": "llama3-405b", "hardware": "h100-sxm", "cluster": {"base": "dgx-h100", "devices": 8}, "workload": {"mode": "train", "global_batch": 8, "seq_len": 8192}}'

# A closed or full stdout is a failure, never exit 0.
"$rl" estimate $S >&- 2>"$tmp/err"
if [ $? = 0 ]; then echo "FAIL closed stdout exited 0"; fails=$((fails + 1)); else passes=$((passes + 1)); fi
if [ -w /dev/full ]; then
  "$rl" estimate $S --json >/dev/full 2>"$tmp/err"
  if [ $? = 0 ] || ! grep -qF "cannot write the output" "$tmp/err"; then
    echo "FAIL full stdout"; cat "$tmp/err"; fails=$((fails + 1))
  else
    passes=$((passes + 1))
  fi
fi
# --json errors are JSON on stdout.
"$rl" estimate '{"model": 1e999}' --json >"$tmp/out" 2>/dev/null
if grep -qF '{"error":{"message":"number out of range (beyond a double'"'"'s 1.8e308)","path":"model"}}' "$tmp/out"; then
  passes=$((passes + 1))
else
  echo "FAIL --json error:"; cat "$tmp/out"; fails=$((fails + 1))
fi

echo "bad_args: $passes passed, $fails failed"
[ "$fails" = 0 ]
