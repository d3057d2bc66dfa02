#!/usr/bin/env python3
"""Fits component parameters that ridgeline's engine presets carry from measured per-operation
data, and prints each fit's residuals (docs/serving.md, "Custom all-reduce").

  python3 scripts/fit_components.py allreduce docs/data/aic/custom_allreduce_h100.csv

allreduce: an engine's own all-reduce kernel under CUDA graphs (vLLM and SGLang custom
all-reduce, TensorRT-LLM's AUTO strategy) as latency + bus bytes / bandwidth,
    t(M, n) = alpha + 2 (n - 1) / n * M / beta          (nccl-tests' bus-bandwidth convention)
fitted per engine by least squares on log t over messages up to 8 MiB (vLLM's custom
all-reduce limit, vllm/distributed/device_communicators/custom_all_reduce.py max_size) and
2, 4 and 8 GPUs. Input columns: engine,version,kernel,num_gpus,message_bytes,latency_s.
No dependencies beyond the standard library.
"""
import csv
import math
import statistics
import sys

MAX_BYTES = 8 * 1024 * 1024


def model(alpha, beta, m, n):
    return alpha + 2 * (n - 1) / n * m / beta


def fit(rows):
    # log-space least squares over a grid refined three times (two parameters, smooth)
    def loss(a, b):
        return sum((math.log(model(a, b, m, n)) - math.log(t)) ** 2 for m, n, t in rows)

    best = None
    lo_a, hi_a, lo_b, hi_b = 1e-7, 1e-4, 1e9, 2e12
    for _ in range(4):
        for i in range(41):
            a = lo_a * (hi_a / lo_a) ** (i / 40)
            for j in range(41):
                b = lo_b * (hi_b / lo_b) ** (j / 40)
                l = loss(a, b)
                if best is None or l < best[0]:
                    best = (l, a, b)
        _, a, b = best
        lo_a, hi_a = a / (hi_a / lo_a) ** 0.1, a * (hi_a / lo_a) ** 0.1
        lo_b, hi_b = b / (hi_b / lo_b) ** 0.1, b * (hi_b / lo_b) ** 0.1
    return best[1], best[2]


def allreduce(path):
    by_engine = {}
    with open(path) as f:
        for r in csv.DictReader(f):
            m = float(r["message_bytes"])
            if m > MAX_BYTES:
                continue
            key = (r["engine"], r["version"])
            by_engine.setdefault(key, []).append((m, int(r["num_gpus"]), float(r["latency_s"])))
    for (engine, version), rows in sorted(by_engine.items()):
        a, b = fit(rows)
        errs = [model(a, b, m, n) / t - 1 for m, n, t in rows]
        ab = [abs(e) for e in errs]
        print(f"{engine} {version}: allreduce_latency {a * 1e6:.2f} us, allreduce_bw "
              f"{b / 1e9:.1f} GB/s; {len(rows)} points, |error| median "
              f"{100 * statistics.median(ab):.1f}%, max {100 * max(ab):.1f}%")
        for m, n, t in sorted(rows, key=lambda x: (x[1], x[0])):
            p = model(a, b, m, n)
            print(f"   n={n} {m:>10.0f} B  measured {t * 1e6:8.2f} us  model {p * 1e6:8.2f} us  "
                  f"{100 * (p / t - 1):+6.1f}%")


if __name__ == "__main__":
    if len(sys.argv) != 3 or sys.argv[1] != "allreduce":
        sys.exit(__doc__)
    allreduce(sys.argv[2])
