#!/usr/bin/env bash
# Browser end-to-end test of the static site (called by CTest as browser.e2e).
#
#   bash tests/e2e/browser_e2e.sh SITE_DIR CLI_PATH OUT_DIR
#
# Serves SITE_DIR on 127.0.0.1, opens a non-default URL state in headless Chromium and reads
# what the page wrote into <pre id="e2e-state"> once the app was up: the URL as decoded by
# the core in WASM (Module.decodeUrl), the app's own configuration (Module.currentConfig)
# and estimate. These must equal, as parsed JSON, what the native CLI says for the same URL:
# `url --decode`, `url --decode --resolved`, `estimate --json` and `plan --json`
# (Module.plan). An inference scenario's Module.sweep and Module.plan must equal `estimate
# --sweep batch --json` and `plan --json`; a video scenario's Module.tx8 and the app's own
# mapping must equal `tx8 --json` (search wall times aside). The roofline exported as SVG,
# two tables as CSV / Markdown and the result JSON must hold what the page shows. Then a bad
# URL must show an error (not a crash), and a screenshot of the page goes to OUT_DIR/page.png.
# Exit 0 only when every check passed.
set -euo pipefail

if [ $# -ne 3 ]; then
  echo "usage: $0 SITE_DIR CLI_PATH OUT_DIR" >&2
  exit 2
fi
site=$(cd "$1" && pwd)
cli=$2
out=$3
mkdir -p "$out"
out=$(cd "$out" && pwd)
# The Python checks below share tests/e2e/page_checks.py.
export PYTHONPATH="$(cd "$(dirname "$0")" && pwd)${PYTHONPATH:+:$PYTHONPATH}"

fail() {
  echo "browser_e2e: FAIL: $*" >&2
  exit 1
}

for f in index.html ridgeline.js ridgeline.wasm; do
  [ -s "$site/$f" ] || fail "$site/$f is missing (build the WASM side first)"
done
[ -x "$cli" ] || fail "CLI $cli is not executable"
chromium=${CHROMIUM:-/usr/bin/chromium}
[ -x "$chromium" ] || fail "headless browser $chromium not found"

# A non-default state: another model, hardware, cluster size, batch and layout.
query='model=llama2-13b&hardware=a100-80gb&cluster.base=dgx-a100&cluster.devices=64&workload.mode=train&workload.global_batch=256&workload.seq_len=4096&parallel.tp=4&parallel.pp=2'

# [SECTION] serve the site on a free port; stop the server and clean up on exit.
port=$(python3 -c 'import socket; s = socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1])')
profiles=$(mktemp -d)
server_pid=""
cleanup() {
  if [ -n "$server_pid" ]; then
    kill "$server_pid" 2>/dev/null || true
    wait "$server_pid" 2>/dev/null || true
  fi
  rm -rf "$profiles"
}
trap cleanup EXIT
python3 -m http.server "$port" --bind 127.0.0.1 --directory "$site" >"$out/http.log" 2>&1 &
server_pid=$!
for _ in $(seq 1 50); do
  if python3 -c "import urllib.request; urllib.request.urlopen('http://127.0.0.1:$port/index.html', timeout=1)" 2>/dev/null; then
    break
  fi
  sleep 0.1
done
base="http://127.0.0.1:$port/index.html"

# [SECTION] headless Chromium (Debian chromium flags for WebGL2 via SwiftShader)
browse() { # browse MODE(dump|shot) URL OUTFILE [VIRTUAL_TIME_MS] [WIDTH,HEIGHT]
  local mode=$1 url=$2 file=$3 budget=${4:-15000} size=${5:-1600,1000} profile
  profile=$(mktemp -d "$profiles/p.XXXXXX")
  local flags=(--headless --no-sandbox --disable-gpu --disable-quic --no-first-run
    --disable-background-networking --disable-component-update --disable-sync
    --user-data-dir="$profile" --enable-unsafe-swiftshader --use-angle=swiftshader
    --window-size="$size" --virtual-time-budget="$budget")
  if [ "$mode" = dump ]; then
    # A loaded machine can starve the page: one more try when the app never reported ready.
    local attempt
    for attempt in 1 2 3; do
      timeout 90 "$chromium" "${flags[@]}" --dump-dom "$url" >"$file" 2>"$file.stderr" || true
      if grep -q '<pre id="e2e-state"[^>]*>[^<]' "$file" &&
        { [[ $url != *e2e-flow=* ]] || grep -q '<pre id="e2e-flow"[^>]*>[^<]' "$file"; } &&
        { [[ $url != *e2e-export=* ]] || grep -q '<pre id="e2e-export"[^>]*>[^<]' "$file"; }; then
        break
      fi
      echo "browser_e2e: attempt $attempt: no app state in the page yet" >&2
    done
  else
    timeout 90 "$chromium" "${flags[@]}" --screenshot="$file" "$url" >/dev/null 2>"$file.stderr" || true
  fi
}

# [SECTION] the page's state for the non-default URL vs the CLI
"$cli" url --decode "$query" >"$out/expected_decoded.json" ||
  fail "CLI rejects the test URL: $("$cli" url --decode "$query" 2>&1 || true)"
"$cli" url --decode "$query" --resolved >"$out/expected_resolved.json"
"$cli" estimate "$(cat "$out/expected_decoded.json")" --json >"$out/expected_estimate.json"
"$cli" plan "$(cat "$out/expected_decoded.json")" --json >"$out/expected_plan.json"

# "#e2e": the page also runs Module.plan / sweep / tx8 on its configuration.
browse dump "$base?$query#e2e" "$out/dom.html"
python3 - "$out" <<'EOF' || fail "the page disagrees with the CLI (see above; files in $out)"
import json, sys
from page_checks import Checks, drop_wall_times, load, page_state

out = sys.argv[1]
state = page_state(out, "dom.html")
json.dump(state, open(f"{out}/page_state.json", "w"), indent=2, sort_keys=True)
c = Checks()
decoded, resolved, estimate = (load(out, n) for n in ("expected_decoded.json", "expected_resolved.json", "expected_estimate.json"))
c.compare("Module.decodeUrl(location) == `ridgeline url --decode`", state["decoded"], decoded)
c.compare("URL rewritten by the app still decodes to the same state", state["decoded_now"], decoded)
c.compare("app's user config == the decoded URL", state["user_config"], decoded)
c.compare("Module.currentConfig() == `ridgeline url --decode --resolved`", state["config"], resolved)
c.compare("estimate params.total == CLI", state["params_total"], estimate["params"]["total"])
c.compare("app estimate == `ridgeline estimate --json` (1e-9 rel)", state["estimate"], estimate, exact=False)
c.compare("no error on the page", {k: state["status"][k] for k in ("error", "url_error", "url_issues")},
          {"error": None, "url_error": None, "url_issues": []})
c.compare("Module.plan(config) == `ridgeline plan --json` (1e-9 rel, wall time aside)",
          drop_wall_times(state["api"].get("plan")),
          drop_wall_times(load(out, "expected_plan.json")), exact=False)
c.exit()
EOF

# [SECTION] the JSON API on an inference and a video scenario vs the CLI
infer_scenario=llama2-13b-v5e-infer
video_scenario=sora-720m-tx8-2x2
serve_scenario=llama3-70b-h100-serve
"$cli" serve "$serve_scenario" --json >"$out/expected_serve.json"
"$cli" plan "$serve_scenario" --json >"$out/expected_plan_serve.json"
"$cli" estimate "$infer_scenario" --sweep batch --json >"$out/expected_sweep.json"
"$cli" plan "$infer_scenario" --json >"$out/expected_plan_infer.json"
"$cli" tx8 "$video_scenario" --json >"$out/expected_tx8.json"
browse dump "$base?scenario=$infer_scenario#e2e" "$out/dom_infer.html"
browse dump "$base?scenario=$video_scenario#e2e" "$out/dom_video.html"
browse dump "$base?scenario=$serve_scenario#e2e" "$out/dom_serve.html"
python3 - "$out" <<'EOF' || fail "the page's plan / sweep / tx8 disagree with the CLI (files in $out)"
import sys
from page_checks import Checks, close, drop_wall_times, load, page_state

out = sys.argv[1]
c = Checks()
a = page_state(out, "dom_infer.html")
c.expect("inference scenario: no error on the page", a["status"]["error"] is None, str(a["status"]))
c.expect("Module.sweep(config) == `ridgeline estimate --sweep batch --json` (1e-9 rel)",
      close(a["api"].get("sweep"), load(out, "expected_sweep.json")))
c.expect("Module.plan(config) == `ridgeline plan --json` for inference (1e-9 rel, wall time aside)",
      close(drop_wall_times(a["api"].get("plan")),
            drop_wall_times(load(out, "expected_plan_infer.json"))))
v = page_state(out, "dom_video.html")
c.expect("video scenario: no error on the page", v["status"]["error"] is None, str(v["status"]))
want = drop_wall_times(load(out, "expected_tx8.json"))
c.expect("Module.tx8(config) == `ridgeline tx8 --json` (1e-9 rel, wall times aside)",
      close(drop_wall_times(v["api"].get("tx8")), want))
c.expect("the app's own tx8 mapping == `ridgeline tx8 --json`",
      close(drop_wall_times(v["api"].get("current_tx8")), want))
s = page_state(out, "dom_serve.html")
c.expect("serve scenario: no error on the page", s["status"]["error"] is None, str(s["status"]))
want = drop_wall_times(load(out, "expected_serve.json"))
c.expect("Module.serve(config) == `ridgeline serve --json` (1e-9 rel, wall time aside)",
      close(drop_wall_times(s["api"].get("serve")), want))
c.expect("the app's own serving simulation == `ridgeline serve --json`",
      close(drop_wall_times(s["api"].get("current_serve")), want))
c.expect("Module.plan(serve config) == `ridgeline plan --json` (deployments, 1e-9 rel)",
      close(drop_wall_times(s["api"].get("plan")), drop_wall_times(load(out, "expected_plan_serve.json"))))
c.exit()
EOF

# [SECTION] bad URLs: an error on the page, never a crash or a blank canvas.
# 1) A layout error: the configuration is kept and the error names the field.
bad_layout='model=llama3-70b&hardware=h100-sxm&cluster.base=dgx-h100&cluster.devices=56&workload.mode=train&workload.global_batch=64&workload.seq_len=8192&parallel.tp=7'
# 2) Overrides only: they apply over the default scenario, and the error names the field.
bad_url='parallel.tp=7'
# 3) One misspelled key: the link is kept, the key marked, the rest applied.
one_bad_key='scenario=llama3-70b-h100-1024&parallel.tpp=4&parallel.zero=3'
browse dump "$base?$bad_layout" "$out/dom_bad_layout.html"
browse dump "$base?$bad_url" "$out/dom_bad_url.html"
browse dump "$base?$one_bad_key" "$out/dom_one_bad_key.html"
python3 - "$out" <<'EOF' || fail "bad URLs are not reported as errors"
import sys
from page_checks import page_state

out = sys.argv[1]
a = page_state(out, "dom_bad_layout.html")
err = a["status"]["error"]
ok = err is not None and err["path"] == "parallel.tp" and "does not divide heads" in err["message"]
print(f"browser_e2e: {'ok  ' if ok else 'FAIL'} tp=7 shows 'parallel.tp: ... does not divide heads': {err}", flush=True)
b = page_state(out, "dom_bad_url.html")
berr = b["status"]["error"]
ok2 = (b["user_config"] == {"scenario": "llama3-70b-h100-1024", "parallel": {"tp": 7}} and
       berr is not None and berr["path"] == "parallel.tp")
print(f"browser_e2e: {'ok  ' if ok2 else 'FAIL'} '?parallel.tp=7' applies over the default scenario and shows {berr}", flush=True)
k = page_state(out, "dom_one_bad_key.html")
issues = k["status"]["url_issues"]
ok3 = (len(issues) == 1 and issues[0]["path"] == "parallel.tpp" and
       k["user_config"] == {"scenario": "llama3-70b-h100-1024", "parallel": {"zero": 3}} and
       k["status"]["error"] is None and k["estimate"]["parallel"]["zero"] == 3 and
       "parallel.tpp=4" in k["location_state"])
print(f"browser_e2e: {'ok  ' if ok3 else 'FAIL'} one misspelled key: marked {issues}, the rest applied, the link kept ({k['location_state']})", flush=True)
sys.exit(0 if ok and ok2 and ok3 else 1)
EOF

# [SECTION] export: a plot as SVG, tables as CSV / Markdown, the whole result as JSON, taken
# the way the page's Save / Copy buttons take them (Module.requestExport, a frame later).
export_scenario=llama3-70b-h100-1024
"$cli" estimate "$export_scenario" --json >"$out/expected_export_estimate.json"
browse dump "$base?scenario=$export_scenario#tab=roofline&e2e-export=roofline:svg,roof_ops:csv,stages:markdown" \
  "$out/dom_export.html"
python3 - "$out" <<'EOF' || fail "exports from the page are wrong (files in $out)"
import html, json, re, sys
import xml.etree.ElementTree as ET
from page_checks import Checks, close, load

out = sys.argv[1]
dom = open(f"{out}/dom_export.html", encoding="utf-8").read()
m = re.search(r'<pre id="e2e-export"[^>]*>(.*?)</pre>', dom, re.S)
if not m or not m.group(1).strip():
    sys.exit("dom_export.html: the page never wrote its exports")
e = json.loads(html.unescape(m.group(1)))
r = e["results"]
c = Checks()
svg = r.get("roofline:svg", "")
open(f"{out}/roofline.svg", "w", encoding="utf-8").write(svg)
ns = "{http://www.w3.org/2000/svg}"
try:
    root = ET.fromstring(svg.encode("utf-8"))
    texts = ["".join(t.itertext()) for t in root.iter(ns + "text")]
    polys = list(root.iter(ns + "polygon"))
    ok = root.tag == ns + "svg"
except ET.ParseError as err:
    texts, polys, ok = [], [], False
    print(f"browser_e2e: roofline.svg does not parse: {err}")
c.expect("roofline SVG: an <svg> document", ok, svg[:200])
c.expect("roofline SVG: polygons (grid, roof, points)", len(polys) >= 20, f"{len(polys)} polygons")
c.expect("roofline SVG: tick labels as <text> (e.g. '500 TFLOP/s')",
         any("TFLOP/s" in t for t in texts), str(texts[:10]))
c.expect("roofline SVG: the x axis title as <text>",
         "arithmetic intensity (FLOP per HBM byte)" in texts, str(texts))
csv = r.get("roof_ops:csv", "")
c.expect("roofline operators table as CSV: the header row",
         csv.startswith("operator,FLOP/B,time,share,achieved,bound\r\n"), csv[:200])
c.expect("roofline operators table as CSV: the qkv row", "\r\nqkv," in csv, csv[:300])
md = r.get("stages:markdown", "")
c.expect("stages table as Markdown: header and separator",
         md.startswith("| stage | layers | params | weights |") and "\n| --- | --- |" in md, md[:300])
res = e.get("result_json", {})
c.expect("result JSON: the configuration",
         res.get("config") == {"scenario": "llama3-70b-h100-1024"}, str(res.get("config")))
c.expect("result JSON: estimate == `ridgeline estimate --json` (1e-9 rel)",
         close(res.get("estimate"), load(out, "expected_export_estimate.json")))
c.exit()
EOF

# [SECTION] user flows, clicked: mouse events on the canvas at the rectangles the widgets
# report (web/index.html #e2e-flow=NAME), the page's state after each step.
# (a longer virtual-time budget: each flow runs after the page is up, frames apart)
browse dump "$base?scenario=llama3-70b-h100-1024#e2e-flow=hf" "$out/dom_flow_hf.html" 30000
browse dump "$base?scenario=sora-720m-tx8-2x2#e2e-flow=resolution" "$out/dom_flow_resolution.html" 30000
browse dump "$base?scenario=llama3-70b-h100-1024#e2e-flow=compare" "$out/dom_flow_compare.html" 30000
browse dump "$base?scenario=llama3-70b-h100-1024&tab=planner&free=all#e2e-flow=planner" "$out/dom_flow_planner.html" 30000
browse dump "$base?scenario=llama3-70b-h100-1024#e2e-flow=efficiencies" "$out/dom_flow_efficiencies.html" 30000
browse dump "$base?scenario=deepseek-r1-b200-serve&tab=planner&free=all#e2e-flow=deployments" "$out/dom_flow_deployments.html" 60000
browse dump "$base?scenario=llama3-70b-h100-1024&tab=calibrate#e2e-flow=calibrate" "$out/dom_flow_calibrate.html" 30000
# The same GEMM sweep and layer profile the calibrate flow drops (web/index.html), fitted by
# the CLI.
printf 'm,n,k,dtype,seconds\n2048,2048,2048,bf16,0.0000358\n4096,4096,4096,bf16,0.000229\n8192,8192,8192,bf16,0.0016917\n16384,16384,16384,bf16,0.013095\n' >"$out/gemm.csv"
shape=',4096,32,8,14336,4096,1,bf16'
printf '%s\n' kernel_class,calls,seconds,hidden,heads,kv_heads,ffn,seq,micro_batch,dtype \
  "gemm,12,0.0076$shape" "attention,5,0.00152$shape" "norm,30,0.00061$shape" \
  "elementwise,6,0.0003$shape" "gap,0,0.00035$shape" >"$out/layer_profile.csv"
"$cli" calibrate "$out/gemm.csv" "$out/layer_profile.csv" --base llama3-70b-h100-1024 --json \
  >"$out/calibrate.json" ||
  fail "the CLI's calibrate failed"
"$cli" estimate llama3-70b-h100-1024 --json >"$out/estimate_before.json" || fail "estimate failed"
"$cli" plan llama3-70b-h100-1024 --free all --json --top 1 >"$out/plan_free.json" ||
  fail "the CLI's plan --free all failed"
"$cli" plan deepseek-r1-b200-serve --free all --json >"$out/plan_deployments.json" ||
  fail "the CLI's serving plan --free all failed"
python3 - "$out" <<'EOF' || fail "a user flow failed (files in $out)"
import json, os, sys
import math
import page_checks
from page_checks import Checks, flow_steps, load

out = sys.argv[1]
c = Checks()
# Qwen2-7B (28 heads, 28 layers) pasted into tp 8 x pp 8 on 1024 GPUs: no deadlock.
hf = flow_steps(out, "dom_flow_hf.html")["paste"]
lay = hf["estimate"].get("parallel", {})
c.expect("HF paste: a legal layout (tp and pp divide 28, 1024 devices)",
         hf["status"]["error"] is None and 28 % lay.get("tp", 3) == 0 and 28 % lay.get("pp", 3) == 0
         and lay.get("dp", 0) * lay.get("tp", 0) * lay.get("pp", 0) * lay.get("cp", 0) == 1024,
         str(hf["status"]) + " " + str(lay))
c.expect("HF paste: the page says what it changed", "Layout adjusted" in hf["status"]["notice"],
         hf["status"]["notice"])
c.expect("HF paste: only the fields ridgeline reads travel in the URL",
         "transformers_version" not in hf["url"] and "bos_token_id" not in hf["url"] and
         "num_hidden_layers=28" in hf["url"], hf["url"])
# Video 720 x 1280: Width + then Height + (step 16) edit one side each.
rs = flow_steps(out, "dom_flow_resolution.html")
c.expect("resolution: Width + changes the width only",
         rs["width+"]["user"]["workload"]["resolution"] == [720, 1296], str(rs["width+"]["user"]))
c.expect("resolution: Height + changes the height only (non-square kept)",
         rs["height+"]["user"]["workload"]["resolution"] == [736, 1296], str(rs["height+"]["user"]))
# Compare: Pin, then Devices + (to the next legal count), both in the URL.
cm = flow_steps(out, "dom_flow_compare.html")
pin, dev = cm["pin"], cm["devices+"]
c.expect("compare: Pin puts pin= and tab=compare into the URL",
         pin["status"]["pinned"] and "pin=scenario%3Dllama3-70b-h100-1024" in pin["url"] and
         "tab=compare" in pin["url"], pin["url"])
c.expect("compare: Devices + steps 1024 -> 2048 (the next count dp x 64 with dp | 1024)",
         dev["user"].get("cluster", {}).get("devices") == 2048, str(dev["user"]))
rows = {r["label"]: r for r in dev["compare"]}
c.expect("compare: the step-time row compares pinned and current",
         "step" in rows and rows["step"]["pinned"] > 0 and rows["step"]["current"] > 0 and
         rows["step"]["change"] != 0, str(rows.get("step")))
c.expect("compare: the link carries both (pin= and the edit)",
         "cluster.devices=2048" in dev["url"] and "pin=" in dev["url"], dev["url"])
open(f"{out}/compare_link.txt", "w").write(dev["url"].split("?", 1)[1])
# Planner: every knob free (the link's free=all, `plan --free all`), the search spread over
# frames, then a click on plan 1 applies the CLI's best layout (the same step time, and its
# knobs in the configuration); the link keeps free=all so that it reproduces the search.
pl = flow_steps(out, "dom_flow_planner.html")["apply"]
c.expect("planner: after applying a plan the link still frees every knob (free=all)",
         "tab=planner" in pl["url"] and "free=all" in pl["url"], pl["url"])
best = load(out, "plan_free.json")["plans"][0]
par = pl["user"].get("parallel", {})
# (knobs at the scenario's values stay out of the configuration: presets/scenarios/
# llama3-70b-h100-1024.json's tp 8, pp 8, ZeRO 1, micro-batch 1)
root = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(page_checks.__file__))))
scen = json.load(open(f"{root}/presets/scenarios/llama3-70b-h100-1024.json"))["parallel"]
dflt = {k: scen[k] for k in ("tp", "pp", "zero", "microbatch")}
c.expect("planner: clicking plan 1 applies the CLI's best layout (tp, pp, ZeRO, micro-batch)",
         all(par.get(k, d) == best["parallel"][k] for k, d in dflt.items()),
         f"{par} vs {best['parallel']}")
c.expect("planner: the applied layout times as the CLI's best plan (1e-9 rel)",
         math.isclose(pl["estimate"]["time"]["step"], best["time"]["step"], rel_tol=1e-9),
         f'{pl["estimate"]["time"]["step"]} vs {best["time"]["step"]}')
# Deployments (serving planner over engines, precisions and MoE layouts, free=all): a click on
# the first row applies the CLI's cheapest deployment: hardware, engine, weights, instance.
dp = flow_steps(out, "dom_flow_deployments.html")["apply"]
best = load(out, "plan_deployments.json")["deployments"][0]
uw, up = dp["user"].get("workload", {}), dp["user"].get("parallel", {})
inst = best["instance"]
c.expect("deployments: clicking row 1 applies the CLI's cheapest deployment (engine, weights)",
         uw.get("engine") == best["engine"] and uw.get("weight_dtype") == best["weight_dtype"]
         and uw.get("precision") == best["precision"], f"{uw} vs {best['engine']}")
c.expect("deployments: ... and its instance (tp, pp, ep, attention DP) and hardware",
         all(up.get(k, 1) == inst[k] for k in ("tp", "pp", "ep", "attention_dp")) and
         dp["user"].get("hardware", "b200") == best["hardware"],  # absent: the scenario's
         f"{up} {dp['user'].get('hardware')} vs {best['instance']} {best['hardware']}")
c.expect("deployments: the applied configuration evaluates without an error",
         dp["status"]["error"] is None, str(dp["status"]))
# Efficiencies: the calibrated parameters appear when the Hardware node is clicked open,
# and the page's estimate carries the calibrated compute overhead's effect (the CLI's).
ef = flow_steps(out, "dom_flow_efficiencies.html")
c.expect("efficiencies: closed, the calibrated fields are not drawn",
         ef["closed"]["rects"]["compute_overhead"] is None, str(ef["closed"]["rects"]))
c.expect("efficiencies: a click opens them (compute overhead drawn)",
         ef["open"]["rects"]["compute_overhead"] is not None, str(ef["open"]["rects"]))
# Calibrate: a GEMM sweep dropped on the page, then Apply: the configuration carries the
# fitted fields the CLI fits from the same file, and the step time changes as the CLI says.
cal = flow_steps(out, "dom_flow_calibrate.html")
cli_cal = load(out, "calibrate.json")
hw = cal["apply"]["user"].get("hardware", {})
want = cli_cal["overrides"]
c.expect("calibrate: the layer profile sets the compute overhead",
         "hardware.compute_overhead" in want, str(want))
c.expect("calibrate: Apply sets the CLI's fitted GEMM fields and overhead over the preset",
         # (over the scenario's own preset the override needs no "base")
         isinstance(hw, dict) and hw.get("base", "h100-sxm") == "h100-sxm" and
         all(math.isclose(hw.get(k.split(".", 1)[1], -1), v, rel_tol=1e-9)
             for k, v in want.items() if k.startswith("hardware.")), f"{hw} vs {want}")
c.expect("calibrate: the link carries them", "hardware.gemm_efficiency=" in cal["apply"]["url"],
         cal["apply"]["url"])
before = load(out, "estimate_before.json")["time"]["step"]
after = cal["apply"]["estimate"]["time"]["step"]
c.expect("calibrate: the step time changes", not math.isclose(before, after, rel_tol=1e-6),
         f"{before} -> {after}")
open(f"{out}/calibrated_user.json", "w").write(__import__("json").dumps(cal["apply"]["user"]))
c.exit()
EOF
# The calibrated configuration times in the CLI as on the page.
"$cli" estimate "$out/calibrated_user.json" --json >"$out/estimate_calibrated.json" ||
  fail "the CLI cannot estimate the page's calibrated configuration"
python3 - "$out" <<'EOF' || fail "the page's calibrated step time differs from the CLI's"
import math, sys
from page_checks import flow_steps, load
out = sys.argv[1]
page = flow_steps(out, "dom_flow_calibrate.html")["apply"]["estimate"]["time"]["step"]
cli = load(out, "estimate_calibrated.json")["time"]["step"]
ok = math.isclose(page, cli, rel_tol=1e-9)
print(f"browser_e2e: {'ok  ' if ok else 'FAIL'} calibrated step time: page {page} s, CLI {cli} s", flush=True)
sys.exit(0 if ok else 1)
EOF
# The compare link as shared: reopened, it shows the same pin, edit and tab.
browse dump "$base?$(cat "$out/compare_link.txt")" "$out/dom_compare_link.html"
python3 - "$out" <<'EOF' || fail "the shared compare link does not reopen the comparison"
import sys
from page_checks import page_state
s = page_state(sys.argv[1], "dom_compare_link.html")
ok = (s["status"]["pinned"] and s["status"]["tab"] == "compare" and
      s["user_config"].get("cluster", {}).get("devices") == 2048)
print(f"browser_e2e: {'ok  ' if ok else 'FAIL'} the shared compare link reopens pin + edit + tab: {s['status']}", flush=True)
sys.exit(0 if ok else 1)
EOF

# [SECTION] new user, round 2: typing, the wheel, scenario overrides, 1280x720
# Typing 512 into Global batch on 512 devices and into Devices: only the value meant is
# applied (the keystrokes 5 and 51 are not), and the page lands where the link does.
browse dump "$base?scenario=llama3-70b-h100-1024&cluster.devices=512#e2e-flow=type:workload.global_batch:512" "$out/dom_type_batch.html" 30000 1280,720
browse dump "$base?scenario=llama3-70b-h100-1024#e2e-flow=type:cluster.devices:512" "$out/dom_type_devices.html" 30000 1280,720
browse dump "$base?scenario=llama3-70b-h100-1024#e2e-flow=type:model.layers:99999999999" "$out/dom_type_layers.html" 30000 1280,720
browse dump "$base?scenario=llama3-70b-h100-1024#e2e-flow=wheel" "$out/dom_wheel.html" 30000 1280,720
# The closed loop from the serving tab: typing a concurrency (or its "+") with Latency vs load
# open switches the sweep to clients without an exception (the page froze on it).
browse dump "$base?scenario=llama3-70b-h100-serve&tab=serving#e2e-flow=type:workload.concurrency:64" "$out/dom_type_concurrency.html" 30000 1280,720
browse dump "$base?scenario=llama3-70b-h100-serve&workload.concurrency=8&tab=serving#e2e-flow=plus:workload.concurrency" "$out/dom_plus_concurrency.html" 30000 1280,720
# The launch of a plan row and of a deployment row (right-click), and of the page (Export).
browse dump "$base?scenario=llama3-70b-h100-1024&tab=planner&free=all#e2e-flow=rclick:plan%201" "$out/dom_rclick_plan.html" 30000 1280,720
browse dump "$base?scenario=deepseek-r1-b200-serve&tab=planner#e2e-flow=rclick:deployments%201" "$out/dom_rclick_deployment.html" 60000 1280,720
browse dump "$base?scenario=llama3-70b-h100-serve#e2e-flow=click:export" "$out/dom_click_export.html" 30000 1280,720
"$cli" estimate "$("$cli" url --decode 'scenario=llama3-70b-h100-1024&cluster.devices=512&workload.global_batch=512')" --json >"$out/link_batch.json" ||
  fail "the CLI cannot estimate the batch link"
"$cli" estimate "$("$cli" url --decode 'scenario=llama3-70b-h100-1024&cluster.devices=512')" --json >"$out/link_devices.json" ||
  fail "the CLI cannot estimate the devices link"
"$cli" url --decode 'scenario=llama3-70b-h100-1024&cluster.devices=512' --resolved >"$out/link_devices_resolved.json"
# A scenario with one cluster field overridden opens with the preset's links.
browse dump "$base?scenario=llama3-70b-h100-1024&cluster.devices=512" "$out/dom_override.html"
# Every tab at 1280x720: nothing cut off (web/layout_check.cpp), and the planner shows 8+
# plans and its Pareto plot.
layout_urls=(
  "scenario=llama3-70b-h100-1024"
  "scenario=llama3-70b-h100-1024&tab=roofline"
  "scenario=llama3-70b-h100-1024&tab=planner&free=all"
  "scenario=llama3-70b-h100-1024&tab=compare&pin=scenario%3Dllama3-70b-h100-1024%26cluster.devices%3D512"
  "scenario=llama3-70b-h100-1024&tab=calibrate"
  "scenario=llama2-13b-v5e-infer"
  "scenario=llama2-13b-v5e-infer&tab=planner"
  "scenario=llama3-70b-h100-serve"
  "scenario=llama3-70b-h100-serve&tab=planner"
  "scenario=llama3-70b-h100-serve&tab=compare&pin=scenario%3Dllama3-70b-h100-serve%26workload.request_rate%3D4"
  "scenario=sora-720m-tx8-2x2"
  "scenario=mixtral-8x7b-h100"
  "scenario=llama3-70b-h100-1024&model=deepseek-r1"
  "scenario=llama3-70b-h100-1024&hardware=gb200&cluster=gb200-nvl72"
  "scenario=llama3-70b-h100-serve&hardware=b200&cluster=dgx-b200&workload.weight_dtype=fp4"
  "scenario=llama3-70b-h100-serve&model=qwen3-235b-a22b&parallel.tp=8&parallel.ep=8&workload.weight_dtype=fp8"
)
for i in "${!layout_urls[@]}"; do
  browse dump "$base?${layout_urls[$i]}#e2e-flow=layout" "$out/dom_layout_$i.html" 30000 1280,720
  echo "${layout_urls[$i]}" >"$out/dom_layout_$i.url"
done
python3 - "$out" "${#layout_urls[@]}" <<'EOF' || fail "new-user flows failed (files in $out)"
import json, math, re, html, sys
from page_checks import Checks, flow_steps, load, page_state

out, n_layout = sys.argv[1], int(sys.argv[2])
c = Checks()
for name, link, what in (("dom_type_batch.html", "link_batch.json", "Global batch"),
                         ("dom_type_devices.html", "link_devices.json", "Devices")):
    st = flow_steps(out, name)
    key = "global_batch" if what == "Global batch" else "devices"
    sec = "workload" if what == "Global batch" else "cluster"
    mid = [st["key " + ch]["user"].get(sec, {}) for ch in "51"]
    c.expect(f"typing 512 into {what}: the keystrokes 5 and 51 are not applied",
             all(not isinstance(m, dict) or m.get(key) not in (5, 51) for m in mid), str(mid))
    end, want = st["enter"], load(out, link)
    c.expect(f"typing 512 into {what}: Enter applies 512, the layout the link opens (1e-9 rel)",
             end["status"]["error"] is None and
             end["estimate"]["parallel"] == want["parallel"] and
             math.isclose(end["estimate"]["time"]["step"], want["time"]["step"], rel_tol=1e-9),
             f'{end["estimate"].get("parallel")} {end["estimate"].get("time", {}).get("step")} vs '
             f'{want["parallel"]} {want["time"]["step"]}')
ly = flow_steps(out, "dom_type_layers.html")["enter"]
c.expect("typing 99999999999 into Layers: an error naming model.layers, the link unchanged",
         (ly["status"]["error"] or {}).get("path") == "model.layers" and
         "model.layers" not in ly["url"], f'{ly["status"]["error"]} {ly["url"]}')
cc = flow_steps(out, "dom_type_concurrency.html")["enter"]
c.expect("typing 64 into Concurrency on Latency vs load: no error, a closed loop in the link",
         cc["status"]["error"] is None and "workload.concurrency=64" in cc["url"] and
         "null" not in cc["url"], f'{cc["status"]["error"]} {cc["url"]}')
cp = flow_steps(out, "dom_plus_concurrency.html")["plus"]
c.expect("Concurrency + on Latency vs load: no error, 9 clients, the page still running",
         cp["status"]["error"] is None and "workload.concurrency=9" in cp["url"],
         f'{cp["status"]["error"]} {cp["url"]}')
for name, what in (("dom_rclick_plan.html", "right-click on plan 1"),
                   ("dom_rclick_deployment.html", "right-click on deployment 1"),
                   ("dom_click_export.html", "Export")):
    st = flow_steps(out, name)["click"]
    c.expect(f"{what}: the launch popup opens, without an error",
             st["status"]["error"] is None and st["rects"]["launch"] is not None,
             f'{st["status"]} {st["rects"]["launch"]}')
dom = open(f"{out}/dom_wheel.html", encoding="utf-8").read()
flow = json.loads(html.unescape(re.search(r'<pre id="e2e-flow"[^>]*>(.*?)</pre>', dom, re.S).group(1)))
ys = [s["y"] for s in flow["scroll"]]
line = flow["scroll"][0]["line"]
steps = [(ys[i + 1] - ys[i]) / line for i in range(3)]
c.expect("wheel over Configuration: a notch down scrolls down a few lines, twice; up comes back",
         ys[0] == 0 and 2 <= steps[0] <= 8 and 2 <= steps[1] <= 8 and -8 <= steps[2] <= -2,
         f"scroll y {ys} (line {line} px)")
ov = page_state(out, "dom_override.html")
c.expect("scenario + cluster.devices=512: no error, the preset's links kept",
         ov["status"]["error"] is None and
         ov["config"]["cluster"] == load(out, "link_devices_resolved.json")["cluster"],
         str(ov["status"]))
for i in range(n_layout):
    url = open(f"{out}/dom_layout_{i}.url").read().strip()
    dom = open(f"{out}/dom_layout_{i}.html", encoding="utf-8").read()
    m = re.search(r'<pre id="e2e-flow"[^>]*>(.*?)</pre>', dom, re.S)
    if not c.expect(f"1280x720 {url}: the page drew", bool(m and m.group(1).strip())):
        continue
    f = json.loads(html.unescape(m.group(1)))
    c.expect(f"1280x720 {url}: nothing cut off", f["problems"] == [], json.dumps(f["problems"]))
    if url.endswith("llama3-70b-h100-serve&tab=planner"):
        c.expect("1280x720 Deployments tab: the plan's first row is drawn (no planning error)",
                 f["rects"].get("deployments 1") is not None, str(f["rects"]))
    if "tab=planner&free=all" in url:
        r, (w, h) = f["rects"], f["view"]
        shown = [k for k in range(1, 11) if r.get(f"plan {k}") and r.get("plans") and
                 r[f"plan {k}"][3] <= r["plans"][3] + 1]
        c.expect("1280x720 planner: at least 8 plans in view", len(shown) >= 8, str(r))
        p = r.get("pareto")
        c.expect("1280x720 planner: the Pareto plot in view",
                 p is not None and p[0] >= 0 and p[1] >= 0 and p[2] <= w and p[3] <= h, str(p))
c.exit()
EOF

# [SECTION] screenshot of the same non-default URL
rm -f "$out/page.png"
browse shot "$base?$query" "$out/page.png"
[ -f "$out/page.png" ] || fail "no screenshot written (see $out/page.png.stderr)"
size=$(wc -c <"$out/page.png")
[ "$(head -c 8 "$out/page.png" | od -An -tx1 | tr -d ' \n')" = "89504e470d0a1a0a" ] ||
  fail "$out/page.png is not a PNG"
# A blank or error-only page compresses to a few kB; the app's panels are far larger.
[ "$size" -gt 60000 ] || fail "$out/page.png is only $size bytes: blank page?"
echo "browser_e2e: ok   screenshot $out/page.png ($size bytes)"
# Every file the page asked for was there (no /favicon.ico 404 on each load).
if grep -E '" 404 ' "$out/http.log" >"$out/http_404.txt"; then
  fail "the page requested missing files: $(head -3 "$out/http_404.txt")"
fi
echo "browser_e2e: ok   no request answered 404 ($(grep -c 'GET ' "$out/http.log") requests)"
echo "browser_e2e: PASS"
