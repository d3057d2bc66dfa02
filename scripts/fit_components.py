#!/usr/bin/env python3
"""Fits component parameters that ridgeline's engine presets carry from measured per-operation
data, and prints each fit's residuals (docs/serving.md, "Custom all-reduce").

The all-reduce, gemm and quantize fits now run in `ridgeline calibrate`
(core/calibrate/fit.cpp: `ridgeline calibrate docs/data/aic/custom_allreduce_h100.csv --base
docs/data/serving/<engine>-base.json`, `ridgeline calibrate docs/data/aic/gemm.csv --base` a
serving configuration of the chip naming the engine, `ridgeline calibrate
docs/data/aic/quantize.csv --base <chip>`), which the presets cite; their modes stay here for
comparison. gemm_ratio is still only here.

  python3 scripts/fit_components.py allreduce docs/data/aic/custom_allreduce_h100.csv

allreduce: an engine's own all-reduce kernel under CUDA graphs (vLLM and SGLang custom
all-reduce, TensorRT-LLM's AUTO strategy) as latency + bus bytes / bandwidth,
    t(M, n) = alpha + 2 (n - 1) / n * M / beta          (nccl-tests' bus-bandwidth convention)
fitted per engine by least squares on log t over messages up to 8 MiB (vLLM's custom
all-reduce limit, vllm/distributed/device_communicators/custom_all_reduce.py max_size) and
2, 4 and 8 GPUs. Input columns: engine,version,kernel,num_gpus,message_bytes,latency_s.

  python3 scripts/fit_components.py gemm docs/data/aic/gemm.csv

gemm: an engine's dense GEMM kernels at the small M of decode (M <= 64 rows; weight streaming)
as a fixed time per call plus the operand bytes over a share of the chip's HBM bandwidth,
    t(M, N, K) = latency + (N K w + M K w + 2 M N) / (bw_efficiency * hbm_bw)
(w: 2 bytes for bf16, 1 for fp8 with its per-tensor activation quantisation, 0.5625 for
NVFP4 with its scales; hbm_bw from the
chip's preset: H100 SXM 3.35 TB/s, H200 4.8, B200 8), fitted per chip, engine and dtype by
least squares on log t over M 1-64, N and K 1024-16384.
Input columns: gpu,engine,version,dtype,m,n,k,latency_s.

  python3 scripts/fit_components.py quantize docs/data/aic/quantize.csv

quantize: the kernels an FP8 recipe adds around its GEMMs (docs/calibration.md "FP8
quantisation kernels"), per chip: the cast (read a bf16 tensor, write its FP8 copy: 3 bytes an
element) and the amax (read it: 2 bytes an element), each as a fixed time per kernel plus its
bytes over a share of HBM bandwidth,
    t(M, K) = latency + bytes(M, K) / (bw_efficiency * hbm_bw)
fitted by least squares on log t over the tensors outside the L2 cache's reach: up to 1 MB
(where the fixed time shows) and from 256 MB (where the bandwidth does); the tensors between,
which a 50-126 MB L2 partly holds, are printed, not fitted.
Input columns: gpu,engine,version,op,m,k,latency_s.

  python3 scripts/fit_components.py gemm_ratio docs/data/aic/gemm_large.csv

gemm_ratio: a chip's FP8 and FP4 GEMM efficiency relative to its bf16 one at large shapes
(M, N, K each 4096-16384, compute-bound), from one engine's measured GEMMs of each dtype,
    ratio(dtype) = median over shapes of (t_bf16 / t_dtype) x (peak_bf16 / peak_dtype)
so that gemm_efficiency_<dtype> = gemm_efficiency x ratio keeps the chip's bf16 basis (its
MAMF / cuBLAS fit) and takes only the relative rate from the table, corrected by the
table's bias on H100 (its fitted fp8/bf16 over the table's ratio: the FP8 rows carry their
activation quantisation). Input columns: gpu,engine,version,dtype,m,n,k,latency_s; peaks and
the H100 fit from presets/hardware/.
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


HBM_BW = {"h100-sxm": 3.35e12, "h200": 4.8e12, "b200": 8.0e12, "b300": 8.0e12}  # presets/hardware/*.json
WEIGHT_BYTES = {"bf16": 2, "fp8": 1, "fp4": 0.5625}  # NVFP4: E2M1 + an E4M3 scale per 16


def fit_latency_efficiency(loss, lo, hi, rounds):
    """(latency, efficiency) minimising loss: a 21 x 21 grid over [lo, hi], refined `rounds`
    times around the best point."""
    best = None
    for _ in range(rounds):
        for i in range(21):
            a = lo[0] + (hi[0] - lo[0]) * i / 20
            for j in range(21):
                e = lo[1] + (hi[1] - lo[1]) * j / 20
                l = loss(a, e)
                if best is None or l < best[0]:
                    best = (l, a, e)
        _, a, e = best
        wa, we = (hi[0] - lo[0]) / 8, (hi[1] - lo[1]) / 8
        lo, hi = [max(0.0, a - wa), max(0.05, e - we)], [a + wa, e + we]
    return best[1], best[2]


def gemm_model(latency, eff, m, n, k, w, bw):
    return latency + (n * k * w + m * k * w + 2 * m * n) / (eff * bw)


def gemm(path):
    by_key = {}
    with open(path) as f:
        for r in csv.DictReader(f):
            key = (r["gpu"], r["engine"], r["version"], r["dtype"])
            by_key.setdefault(key, []).append(
                (int(r["m"]), int(r["n"]), int(r["k"]), float(r["latency_s"])))
    for (gpu, engine, version, dtype), rows in sorted(by_key.items()):
        w, bw = WEIGHT_BYTES[dtype], HBM_BW[gpu]

        def loss(a, e):
            return sum((math.log(gemm_model(a, e, m, n, k, w, bw)) - math.log(t)) ** 2
                       for m, n, k, t in rows)

        # a grid over latency 0-30 us and efficiency 0.2-1.2, refined five times
        a, e = fit_latency_efficiency(loss, [0.0, 0.2], [30e-6, 1.2], 5)
        errs = [gemm_model(a, e, m, n, k, w, bw) / t - 1 for m, n, k, t in rows]
        ab = sorted(abs(x) for x in errs)
        print(f"{gpu} {engine} {version} {dtype}: latency {a * 1e6:.2f} us, bw_efficiency {e:.3f}; "
              f"{len(rows)} points, |error| median {100 * statistics.median(ab):.1f}%, "
              f"p90 {100 * ab[int(0.9 * len(ab))]:.1f}%, max {100 * ab[-1]:.1f}%")


QUANT_BYTES = {"cast": 3, "amax": 2}  # bytes an element: bf16 read (+ FP8 write)


def quantize(path):
    by_key = {}
    with open(path) as f:
        for r in csv.DictReader(f):
            key = (r["gpu"], r["op"])
            nbytes = QUANT_BYTES[r["op"]] * int(r["m"]) * int(r["k"])
            by_key.setdefault(key, []).append((nbytes, float(r["latency_s"])))
    for (gpu, op), rows in sorted(by_key.items()):
        bw = HBM_BW[gpu]
        fitted = [(b, t) for b, t in rows if b <= 1e6 or b >= 256e6]

        def model(a, e, b):
            return a + b / (e * bw)

        def loss(a, e):
            return sum((math.log(model(a, e, b)) - math.log(t)) ** 2 for b, t in fitted)

        a, e = fit_latency_efficiency(loss, [0.0, 0.1], [20e-6, 1.2], 6)
        for name, pts in (("fitted", fitted),
                          ("1-256 MB (L2, not fitted)", [(b, t) for b, t in rows
                                                         if 1e6 < b < 256e6])):
            ab = sorted(abs(model(a, e, b) / t - 1) for b, t in pts)
            print(f"{gpu} {op}: latency {a * 1e6:.2f} us, bw_efficiency {e:.3f}; {name}: "
                  f"{len(pts)} points, |error| median {100 * statistics.median(ab):.1f}%, "
                  f"max {100 * ab[-1]:.1f}%")


def preset(gpu):
    import json
    import os
    root = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..")
    with open(os.path.join(root, "presets", "hardware", gpu + ".json")) as f:
        return json.load(f)


def gemm_ratio(path):
    times = {}
    with open(path) as f:
        for r in csv.DictReader(f):
            times.setdefault(r["gpu"], {}).setdefault(
                (int(r["m"]), int(r["n"]), int(r["k"])), {})[r["dtype"]] = float(r["latency_s"])
    medians = {}
    for gpu, shapes in sorted(times.items()):
        peak = preset(gpu)["peak_flops"]
        for dtype in ("fp8", "fp4"):
            ratios = [v["bf16"] / v[dtype] * peak["bf16"] / peak[dtype]
                      for v in shapes.values() if "bf16" in v and dtype in v]
            if not ratios:
                continue
            ratios.sort()
            medians[(gpu, dtype)] = statistics.median(ratios)
            print(f"{gpu} {dtype}/bf16 efficiency ratio: median {medians[(gpu, dtype)]:.3f} "
                  f"over {len(ratios)} shapes (min {ratios[0]:.3f}, max {ratios[-1]:.3f})")
    # H100, where the FP8 efficiency is fitted to cuBLAS sweeps, gives the table's bias (its
    # FP8 rows carry their activation quantisation and the engine's kernel choice)
    h = preset("h100-sxm")
    fitted = h["gemm_efficiency_fp8"] / h["gemm_efficiency"]
    bias = fitted / medians[("h100-sxm", "fp8")]
    print(f"h100-sxm: fitted fp8/bf16 {fitted:.3f} over the table's {medians[('h100-sxm', 'fp8')]:.3f}:"
          f" the table reads x {bias:.3f}")
    for (gpu, dtype), r in sorted(medians.items()):
        if gpu == "h100-sxm":
            continue
        eff = preset(gpu)["gemm_efficiency"]
        print(f"{gpu}: gemm_efficiency_{dtype} = {eff} x {r:.3f} x {bias:.3f} = "
              f"{eff * r * bias:.3f}")


if __name__ == "__main__":
    modes = {"allreduce": allreduce, "gemm": gemm, "quantize": quantize, "gemm_ratio": gemm_ratio}
    if len(sys.argv) != 3 or sys.argv[1] not in modes:
        sys.exit(__doc__)
    modes[sys.argv[1]](sys.argv[2])
