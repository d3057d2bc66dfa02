#!/usr/bin/env bash
# The README's examples run as shown: every `ridgeline ...` command in its code blocks must
# exit 0, and every example URL query (`?...` in backticks) must decode with
# `ridgeline url --decode` and then compute without error (estimate, serve or tx8 by mode).
# Synopsis lines (with argument names such as CFG, FILE, [--json]) are skipped: they are the
# usage list, not examples. The example's {...config.json...} stands for a config.json's text
# and is run with a real one (Meta-Llama-3-8B's, below).
# usage: readme_examples_test.sh RIDGELINE README
set -u
rl=$1
readme=$2
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT

# Meta-Llama-3-8B's config.json (https://huggingface.co/meta-llama/Meta-Llama-3-8B), the
# fields ridgeline reads: the stand-in for {...config.json...}.
cat >"$tmp/hf.json" <<'EOF'
{"architectures": ["LlamaForCausalLM"], "model_type": "llama", "hidden_size": 4096,
 "intermediate_size": 14336, "num_hidden_layers": 32, "num_attention_heads": 32,
 "num_key_value_heads": 8, "vocab_size": 128256, "max_position_embeddings": 8192,
 "rope_theta": 500000.0, "tie_word_embeddings": false, "attention_bias": false,
 "mlp_bias": false}
EOF

python3 - "$readme" "$tmp" <<'EOF'
import json, re, shlex, sys
readme, tmp = sys.argv[1], sys.argv[2]
text = open(readme, encoding="utf-8").read()
hf = json.dumps(json.load(open(tmp + "/hf.json")))
blocks = re.findall(r"^```[^\n]*\n(.*?)^```", text, flags=re.S | re.M)
commands = []
for block in blocks:
    lines = block.split("\n")
    i = 0
    while i < len(lines):
        line = lines[i]
        i += 1
        if not line.startswith("ridgeline "):
            continue
        cmd = line
        while True:  # a quoted argument may go on over several lines
            try:
                argv = shlex.split(cmd)
                break
            except ValueError:
                if i >= len(lines):
                    argv = None
                    break
                cmd += "\n" + lines[i]
                i += 1
        if argv is None:
            print("readme: unbalanced quotes in: " + cmd, file=sys.stderr)
            sys.exit(1)
        # a usage line, not an example: argument names in capitals or optional [--flags]
        unquoted = re.sub(r"'[^']*'", "", cmd)
        if re.search(r"\b[A-Z][A-Z_]{2,}\b|\[", unquoted):
            continue
        argv = [a.replace("{...config.json...}", hf) for a in argv[1:]]
        commands.append(argv)
urls = sorted(set(re.findall(r"`(\?[^`]+)`", text)))
with open(tmp + "/commands.json", "w") as f:
    json.dump({"commands": commands, "urls": urls}, f)
print(f"readme: {len(commands)} commands, {len(urls)} URL queries")
EOF
[ -s "$tmp/commands.json" ] || { echo "FAIL: could not extract the README's examples"; exit 1; }

# Commands run from the repository's root as the README says (its relative paths: the sample
# files, docs/examples), in a scratch copy of the folders they read so what they write (the
# calibrated/ presets) stays out of the tree.
root=$(cd "$(dirname "$readme")" && pwd)
mkdir -p "$tmp/root"
for d in tests docs presets tools; do ln -s "$root/$d" "$tmp/root/$d"; done
cd "$tmp/root" || exit 1

fails=0
passes=0
run() { # name, command...
  local name=$1
  shift
  if "$@" >"$tmp/out" 2>"$tmp/err"; then
    passes=$((passes + 1))
  else
    echo "FAIL $name (exit $?): $(head -c 400 "$tmp/err")"
    fails=$((fails + 1))
  fi
}

n=$(python3 -c 'import json,sys; print(len(json.load(open(sys.argv[1]))["commands"]))' \
  "$tmp/commands.json")
[ "$n" -gt 0 ] || { echo "FAIL: no ridgeline command found in the README"; exit 1; }
for ((k = 0; k < n; k++)); do
  mapfile -d '' argv < <(python3 -c '
import json, sys
for a in json.load(open(sys.argv[1]))["commands"][int(sys.argv[2])]:
    sys.stdout.write(a + "\0")' "$tmp/commands.json" "$k")
  run "ridgeline ${argv[*]:0:3}" "$rl" "${argv[@]}"
done

mapfile -t urls < <(python3 -c '
import json, sys
for u in json.load(open(sys.argv[1]))["urls"]:
    print(u)' "$tmp/commands.json")
[ "${#urls[@]}" -gt 0 ] || { echo "FAIL: no example URL query found in the README"; exit 1; }
for u in "${urls[@]}"; do
  q=${u%%#*} # the fragment (#tab=...) picks a tab of the page, not a configuration
  if ! "$rl" url --decode "$q" >"$tmp/cfg.json" 2>"$tmp/err"; then
    echo "FAIL url $u: $(cat "$tmp/err")"
    fails=$((fails + 1))
    continue
  fi
  "$rl" url --decode "$q" --resolved >"$tmp/resolved.json" 2>/dev/null
  mode=$(python3 -c 'import json,sys; print(json.load(open(sys.argv[1]))["workload"]["mode"])' \
    "$tmp/resolved.json")
  case "$mode" in
  serve) run "url $u (serve)" "$rl" serve "$tmp/cfg.json" ;;
  tx8-op | video) run "url $u (tx8)" "$rl" tx8 "$tmp/cfg.json" ;;
  *) run "url $u (estimate)" "$rl" estimate "$tmp/cfg.json" ;;
  esac
done

echo "$passes passed, $fails failed"
[ "$fails" = 0 ]
