#!/usr/bin/env python3
"""Reproduces the component fits of docs/calibration.md from presets/validation/components.json.

GEMM: eff(m, n, k) = e x waves(m, n) x k / (k + k_half) (core/time/gemm_efficiency.cpp),
least squares on log(predicted / measured) over the points marked "fitted" (the memory
bound left out, as the fit was made); A100 bf16/fp16 and H100 FP8 each fit (e, k_half).
Collectives: the NVLink step latency of an 8-GPU ring/tree AllReduce at the link's rate x
efficiency, fitted to the all_reduce sweep points marked "fitted".

  python3 scripts/fit_components.py [ROOT]
"""
import json
import math
import pathlib
import sys

TILES = [(128, 256), (256, 128), (128, 128)]
PEAK = {("a100-80gb", "bf16"): 312e12, ("h100-sxm", "fp8"): 1979e12}
SMS = {"a100-80gb": 108, "h100-sxm": 132}


def waves(m, n, sms):
    best = 0.0
    for tm, tn in TILES:
        tiles = math.ceil(m / tm) * math.ceil(n / tn)
        best = max(best, m * n / (math.ceil(tiles / sms) * sms * tm * tn))
    return min(1.0, best)


def fit_gemm(points, hw, prec):
    pts = [p for p in points if p["kind"] == "gemm" and p["hardware"] == hw
           and p.get("precision", "bf16") == prec and p.get("fitted")]
    best = None
    for k_half in range(0, 1025, 8):
        shape = [waves(p["m"], p["n"], SMS[hw]) * p["k"] / (p["k"] + k_half) for p in pts]
        logs = [math.log(p["measured"] / PEAK[(hw, prec)] / s) for p, s in zip(pts, shape)]
        e = math.exp(sum(logs) / len(logs))
        res = [e * s * PEAK[(hw, prec)] / p["measured"] - 1 for p, s in zip(pts, shape)]
        cost = sum(math.log(1 + r) ** 2 for r in res)
        if best is None or cost < best[0]:
            best = (cost, k_half, e, res)
    _, k_half, e, res = best
    rms = math.sqrt(sum(r * r for r in res) / len(res))
    print(f"GEMM {hw} {prec}: gemm_efficiency {e:.3f}, k_half {k_half} "
          f"({len(res)} points, rms {100 * rms:.1f}%, max {100 * max(map(abs, res)):.1f}%)")


def fit_latency(points, cluster, rate):
    pts = [p for p in points if p["kind"] == "collective" and p.get("fitted")
           and p["cluster"]["base"] == cluster and p["group"] == 8 and p["op"] == "allreduce"]
    n = 8
    best = None
    for tenth_us in range(1, 200):
        a = tenth_us * 1e-7
        res = []
        for p in pts:
            m = p["bytes"]
            ring = 2 * (n - 1) * a + 2 * (n - 1) / n * m / rate
            tree = 2 * math.ceil(math.log2(n)) * a + 2 * m / rate
            busbw = m / min(ring, tree) * 2 * (n - 1) / n
            res.append(busbw / p["measured"] - 1)
        cost = sum(math.log(1 + r) ** 2 for r in res)
        if best is None or cost < best[0]:
            best = (cost, tenth_us / 10, res)
    _, us, res = best
    print(f"NVLink step latency {cluster}: {us:.1f} us ({len(res)} points, max "
          f"{100 * max(map(abs, res)):.0f}%)")


def main(root):
    points = json.load(open(root / "presets/validation/components.json"))["points"]
    fit_gemm(points, "a100-80gb", "bf16")
    fit_gemm(points, "h100-sxm", "fp8")
    fit_latency(points, "dgx-a100", 0.767 * 300e9)
    fit_latency(points, "dgx-h100", 0.822 * 450e9)


if __name__ == "__main__":
    main(pathlib.Path(sys.argv[1] if len(sys.argv) > 1 else ".").resolve())
