#!/usr/bin/env python3
"""Fit speculative decoding's acceptance rate to the measured pairs of the B200 serving
calibration file: runs measured with and without speculative decoding on the same engine, image
family, layout, lengths and concurrency. For each pair, the acceptance a is the one at which the
model's TPOT ratio (speculative / plain, both simulated by `ridgeline serve`) equals the
measured one: the model's error common to both runs cancels in the ratio. Prints the per-pair
values, their median (the default, core/serve/speculative.hpp) and the leave-one-out spread.

  python3 scripts/fit_speculative.py RIDGELINE serving-calibration-b200.csv
"""
import csv, json, statistics, subprocess, sys

rl, path = sys.argv[1], sys.argv[2]
rows = list(csv.DictReader(open(path)))

def config(r, spec=None, a=None):
    k = {"mtp1": 1, "mtp3": 3, "eagle3": 2}.get(spec or "", 0)
    w = {"mode": "serve", "concurrency": int(r["concurrency"]),
         "requests_per_client": int(r["requests_per_client"]), "count_warmup": True,
         # lengths uniform on [0.8, 1.0] x isl / osl: their mean
         "prompt_len": round(0.9 * int(r["isl"])), "gen_len": round(0.9 * int(r["osl"])),
         "precision": r["precision"], "weight_dtype": r["precision"], "kv_dtype": r["kv_dtype"],
         "fp8_recipe": "blockwise",  # DeepSeek-R1's FP8 checkpoint: 1x128 / 128x128 blocks
         "engine": r["engine"]}
    if r["max_num_tokens"]:
        w["scheduler"] = {"max_tokens": int(r["max_num_tokens"])}
    if k:
        # InferenceX runs SGLang's EAGLE algorithm over DeepSeek's own MTP layer (2 steps,
        # top-k 1) and TensorRT-LLM's MTP with 1 or 3 next-token layers
        w["speculative"] = {"method": "mtp", "draft_tokens": k, "acceptance": a}
    p = {"tp": int(r["tp"]), "attention_dp": int(r["attention_dp"]), "moe_tp": int(r["moe_tp"]),
         "ep": int(r["ep"]), "pp": int(r["pp"])}
    return {"model": "deepseek-r1", "hardware": "b200",
            "cluster": {"base": "dgx-b200", "devices": 8}, "workload": w, "parallel": p}

def tpot(cfg):
    out = subprocess.run([rl, "serve", json.dumps(cfg), "--json"], capture_output=True, text=True)
    d = json.loads(out.stdout)
    if "error" in d:
        raise RuntimeError(d["error"])
    return d["latency"]["tpot"]["mean"]

key = lambda r: (r["engine"], r["engine_image"][:6], r["tp"], r["attention_dp"], r["moe_tp"],
                 r["ep"], r["isl"], r["osl"], r["concurrency"], r["max_num_tokens"])
plain = {key(r): r for r in rows if "DeepSeek" in r["model"] and not r["speculative"]}
pairs = [(plain[key(r)], r) for r in rows if r["speculative"] and key(r) in plain]
fits = []
for b, s in pairs:
    measured = float(b["tpot_ms"]) / float(s["tpot_ms"])
    t0 = tpot(config(b))
    lo, hi = 0.0, 1.0
    for _ in range(14):  # the speed-up rises with a
        a = (lo + hi) / 2
        if t0 / tpot(config(s, s["speculative"], a)) < measured:
            lo = a
        else:
            hi = a
    a = (lo + hi) / 2
    fits.append(a)
    print(f"{s['engine']} {s['engine_image']} {s['speculative']} tp{s['tp']} dp{s['attention_dp']} "
          f"ep{s['ep']} {s['isl']}/{s['osl']} c{s['concurrency']}: measured speed-up "
          f"{measured:.3f}, acceptance {a:.3f}")
med = statistics.median(fits)
# leave one pair out: its speed-up (and its speculative TPOT given the plain run's measured one)
# predicted at the median acceptance of the others
errors = []
for i, (b, s) in enumerate(pairs):
    a = statistics.median(fits[:i] + fits[i + 1:])
    measured = float(b["tpot_ms"]) / float(s["tpot_ms"])
    predicted = tpot(config(b)) / tpot(config(s, s["speculative"], a))
    errors.append(predicted / measured - 1)
print(f"pairs {len(fits)}; median acceptance {med:.3f}; quartiles "
      f"{[round(q, 3) for q in statistics.quantiles(fits, n=4)]}")
print(f"leave one out: speed-up error median |e| {statistics.median(abs(e) for e in errors):.3f}, "
      f"max {max(abs(e) for e in errors):.3f}; by concurrency: " +
      ", ".join(f"c{c} {statistics.median(e for (b, s), e in zip(pairs, errors) if s['concurrency'] == c):+.3f}"
                for c in sorted({s['concurrency'] for _, s in pairs}, key=int)))
