#!/usr/bin/env python3
"""Writes each engine preset's fitted host times and bands (presets/engines/<name>.json:
iteration_overhead, request_overhead, tpot_uncertainty, ttft_uncertainty, source) from
`ridgeline calibrate --groups docs/data/serving/groups.json --json`: each engine fitted to
every run of its serving calibration groups (docs/serving.md "Serving calibration groups").

  python3 scripts/refit_engines.py build/native/shell/ridgeline
"""
import json, subprocess, sys

rl = sys.argv[1]
out = subprocess.run([rl, "calibrate", "--groups", "docs/data/serving/groups.json", "--json"],
                     capture_output=True, text=True, check=True)
report = json.loads(out.stdout)
for e in report["engines"]:
    path = f"presets/engines/{e['name']}.json"
    p = json.load(open(path))
    p["iteration_overhead"] = round(e["iteration_overhead"], 9)
    p["request_overhead"] = round(e["request_overhead"], 9)
    p["tpot_uncertainty"] = round(e["tpot_uncertainty"], 6)
    p["ttft_uncertainty"] = round(e["ttft_uncertainty"], 6)
    groups = [g["name"] for g in report["in_sample"]["groups"] if g["engine"] == e["name"]]
    p["source"] = ("ridgeline calibrate --groups docs/data/serving/groups.json: fitted to the "
                   f"{e['runs']} runs of " + "; ".join(groups))
    # the notes' medians, in sample and left out, from the same report
    def medians(g):
        return f"{100 * g['tpot']['median_abs_error']:.1f}% / {100 * g['ttft']['median_abs_error']:.1f}%"
    held = {g["name"]: g for g in report["held_out"]["groups"]}
    text = "; ".join(f"{g['name']}: TPOT / TTFT {medians(g)} in sample, "
                     f"{medians(held[g['name']])} predicted from the other groups"
                     for g in report["in_sample"]["groups"] if g["engine"] == e["name"])
    head = 'Median |error| (docs/serving.md "Serving calibration groups"): '
    if head in p.get("notes", "") and " Bands:" in p["notes"]:
        before, rest = p["notes"].split(head, 1)
        p["notes"] = before + head + text + "." + " Bands:" + rest.split(" Bands:", 1)[1]
    open(path, "w").write(json.dumps(p, indent=2, ensure_ascii=False) + "\n")
    print(f"{e['name']}: iteration {e['iteration_overhead'] * 1e3:.3f} ms, request "
          f"{e['request_overhead'] * 1e3:.1f} ms, bands {e['tpot_uncertainty']:.3f} / "
          f"{e['ttft_uncertainty']:.3f} over {e['runs']} runs")
