#!/usr/bin/env python3
"""GEMM throughput sweep -> gemm.csv (columns m,n,k,dtype,seconds,tflops).

One row per (shape, dtype): C[m, n] = A[m, k] x B[k, n], timed alone.
  seconds = median GPU time of one GEMM (CUDA events, after warm-up)
  tflops  = 2 m n k / seconds / 1e12
  dtype   = bf16 | fp16 | fp8  (fp8: e4m3 x e4m3 -> bf16 through torch._scaled_mm with
            per-tensor scales; needs sm_89+ and a torch that has it, skipped with a note
            otherwise)

Operands are laid out as nn.Linear's forward (A row-major [m, k], B stored [n, k] and used
transposed, the "TN" GEMM cuBLAS runs for y = x W^T); the backward shapes of the sweep
are timed in that same layout (the time depends on the shape far more than on the layout).

The default sweep covers what a transformer runs:
  - square m = n = k in 1024 .. 16384;
  - the projections of a Llama-3 8B and 70B layer (fused QKV, attention output, fused
    gate+up, down) and the LM head, at token counts m = 1 .. 256 (decode: streaming the
    weights) and 512 .. 16384 (prefill and training), at the tensor-parallel degrees of
    --tp (the column-parallel N or row-parallel K divided by the degree);
  - for m >= 512, the two backward GEMMs of each projection (data gradient [m, k] <-
    [m, n] x [n, k], weight gradient [n, k] <- [n, m] x [m, k]) unless --no-backward.

  python3 tools/measure/gemm_sweep.py [--quick] [--out gemm.csv] [--dtypes bf16,fp16,fp8]
      [--shapes 4096x4096x4096,1x28672x4096] [--flush-l2] [--tp 1,8] [--device cuda:0]
  python3 tools/measure/gemm_sweep.py --self-test      (no GPU, no torch: checks the writer)

Expected run time on an H100: a few minutes for the default sweep (about 800 timings),
under a minute with --quick.
"""
import argparse
import csv
import os
import sys
import tempfile

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import measure_common as mc  # noqa: E402

COLUMNS = ["m", "n", "k", "dtype", "seconds", "tflops"]

# Llama-3 layer dimensions (hidden, query heads, kv heads, head dim, ffn, vocab).
LLAMA3 = {
    "8b": dict(hidden=4096, heads=32, kv_heads=8, head_dim=128, ffn=14336, vocab=128256),
    "70b": dict(hidden=8192, heads=64, kv_heads=8, head_dim=128, ffn=28672, vocab=128256),
}
SQUARE = [1024, 2048, 4096, 8192, 16384]
DECODE_TOKENS = [1, 2, 4, 8, 16, 32, 64, 128, 256]
TRAIN_TOKENS = [512, 1024, 2048, 4096, 8192, 16384]
BACKWARD_MIN_TOKENS = 512


def projections(cfg, tp):
    """(name, n, k) of the layer's weights W[n, k] (y = x W^T) at tensor-parallel degree tp:
    QKV and gate+up split N (column parallel), O and down split K (row parallel)."""
    h, d = cfg["hidden"], cfg["head_dim"]
    return [
        ("qkv", (cfg["heads"] + 2 * cfg["kv_heads"]) * d // tp, h),
        ("o", h, cfg["heads"] * d // tp),
        ("gate_up", 2 * cfg["ffn"] // tp, h),
        ("down", h, cfg["ffn"] // tp),
        ("lm_head", cfg["vocab"] // tp, h),
    ]


def default_shapes(models, tps, backward, quick):
    """The sweep as an ordered list of unique (m, n, k)."""
    shapes = []
    if quick:
        shapes += [(s, s, s) for s in (1024, 4096, 8192)]
        for _, n, k in projections(LLAMA3["8b"], 1):
            shapes += [(m, n, k) for m in (1, 16, 128, 4096)]
        return list(dict.fromkeys(shapes))
    shapes += [(s, s, s) for s in SQUARE]
    for model in models:
        for tp in tps:
            for _, n, k in projections(LLAMA3[model], tp):
                shapes += [(m, n, k) for m in DECODE_TOKENS + TRAIN_TOKENS]
                if backward:
                    for m in TRAIN_TOKENS:
                        shapes += [(m, k, n), (n, k, m)]  # data gradient, weight gradient
    return list(dict.fromkeys(shapes))  # drops repeats, keeps the order


def parse_shapes(text):
    """'MxNxK,MxNxK' -> [(m, n, k), ...]"""
    shapes = []
    for item in mc.str_list(text):
        parts = item.lower().split("x")
        if len(parts) != 3 or not all(p.isdigit() and int(p) > 0 for p in parts):
            raise argparse.ArgumentTypeError(f"a shape is MxNxK with positive integers, got {item!r}")
        shapes.append(tuple(int(p) for p in parts))
    return shapes


# ----------------------------------------------------------------------------- GPU side
def fp8_support(device):
    """None when FP8 GEMMs run here, else why not (printed as a note)."""
    import torch

    if not hasattr(torch, "float8_e4m3fn") or not hasattr(torch, "_scaled_mm"):
        return f"torch {torch.__version__} has no float8_e4m3fn/_scaled_mm"
    major, minor = torch.cuda.get_device_capability(device)
    if getattr(torch.version, "hip", None) is None and (major, minor) < (8, 9):
        return f"sm_{major}{minor} has no FP8 tensor cores (needs sm_89+)"
    try:  # a tiny probe: the API changed across torch versions, and ROCm uses other types
        a = torch.zeros(32, 32, device=device).to(torch.float8_e4m3fn)
        scaled_mm(a, a, torch.ones((), device=device), torch.ones((), device=device), False)
        torch.cuda.synchronize()
    except Exception as exc:  # noqa: BLE001 - any failure means: no fp8 sweep
        return f"torch._scaled_mm failed on this GPU: {str(exc).splitlines()[0]}"
    return None


def scaled_mm(a, b_nk, scale_a, scale_b, fast_accum):
    """a[m, k] (row-major) x b_nk[n, k]^T (column-major) in e4m3, per-tensor scales, bf16 out.
    torch 2.1-2.3 returns (out, amax), 2.4+ returns out; the keywords work in both."""
    import torch

    kwargs = dict(out_dtype=torch.bfloat16, scale_a=scale_a, scale_b=scale_b)
    if fast_accum:  # the keyword appeared in torch 2.2
        kwargs["use_fast_accum"] = True
    out = torch._scaled_mm(a, b_nk.t(), **kwargs)
    return out[0] if isinstance(out, tuple) else out


def make_gemm(m, n, k, dtype, device, fast_accum):
    """Allocates the operands once and returns a function running the GEMM."""
    import torch

    if dtype == "fp8":
        a = torch.randn(m, k, device=device).to(torch.float8_e4m3fn)
        b = torch.randn(n, k, device=device).to(torch.float8_e4m3fn)
        sa = torch.ones((), device=device)
        sb = torch.ones((), device=device)
        return lambda: scaled_mm(a, b, sa, sb, fast_accum)
    torch_dtype = {"bf16": torch.bfloat16, "fp16": torch.float16}[dtype]
    a = torch.randn(m, k, device=device, dtype=torch_dtype)
    b = torch.randn(n, k, device=device, dtype=torch_dtype)
    c = torch.empty(m, n, device=device, dtype=torch_dtype)
    bt = b.t()
    return lambda: torch.mm(a, bt, out=c)


def run(args):
    device = mc.setup_device(args.device)
    mc.print_environment("gemm_sweep.py", device)

    dtypes = args.dtypes or (["bf16", "fp8"] if args.quick else ["bf16", "fp16", "fp8"])
    bad = [d for d in dtypes if d not in ("bf16", "fp16", "fp8")]
    if bad:
        sys.exit(f"error: unknown dtype(s) {bad}; use bf16, fp16, fp8")
    if "fp8" in dtypes:
        why = fp8_support(device)
        if why:
            print(f"# note: fp8 skipped: {why}")
            dtypes = [d for d in dtypes if d != "fp8"]

    shapes = args.shapes or default_shapes(args.models, args.tp, args.backward, args.quick)
    flush = mc.L2Flush(device) if args.flush_l2 else None
    print(f"# {len(shapes)} shapes x {dtypes}; warmup {args.warmup}, repeats {args.repeats}, "
          f"L2 flush {'on' if flush else 'off'}, tf32 off")
    print(f"# {'m':>6} {'n':>6} {'k':>6} {'dtype':>5} {'us':>10} {'TFLOP/s':>8}")

    with mc.CsvWriter(args.out, COLUMNS) as out:
        for m, n, k in shapes:
            for dtype in dtypes:
                if dtype == "fp8" and (k % 16 or n % 16):
                    print(f"# note: {m}x{n}x{k} fp8 skipped: _scaled_mm needs k and n divisible by 16")
                    continue
                seconds, failure = None, None
                try:
                    gemm = make_gemm(m, n, k, dtype, device, args.fp8_fast_accum)
                    seconds = mc.time_cuda(gemm, args.warmup, args.repeats, flush)
                except RuntimeError as exc:  # torch.cuda.OutOfMemoryError is one
                    failure = "out of memory" if mc.is_oom(exc) else str(exc).splitlines()[0]
                gemm = None  # drops the operands (held by the closure) before the next shape
                mc.free_memory()
                if failure:
                    print(f"# note: {m}x{n}x{k} {dtype} skipped: {failure}")
                    continue
                tflops = 2.0 * m * n * k / seconds / 1e12
                out.row(m, n, k, dtype, seconds, tflops)
                print(f"  {m:>6} {n:>6} {k:>6} {dtype:>5} {seconds * 1e6:>10.1f} {tflops:>8.1f}",
                      flush=True)


# ----------------------------------------------------------------------------- self-test
def self_test(path):
    """Without torch or a GPU: writes a CSV of synthetic timings (a roofline at 800 TFLOP/s
    and 3.35 TB/s plus 5 us) with the real writer, reads it back and checks the format."""
    rows = []
    for m, n, k in default_shapes(["8b", "70b"], [1], True, False)[:40]:
        for dtype, size, peak in (("bf16", 2, 800e12), ("fp8", 1, 1600e12)):
            seconds = max(2.0 * m * n * k / peak, (m * k + n * k) * size / 3.35e12 + m * n * 2 / 3.35e12) + 5e-6
            rows.append((m, n, k, dtype, seconds, 2.0 * m * n * k / seconds / 1e12))
    with mc.CsvWriter(path, COLUMNS) as out:
        for row in rows:
            out.row(*row)
    with open(path, newline="") as f:
        text = f.read()
    lines = text.split("\n")
    assert lines[0] == ",".join(COLUMNS), lines[0]
    assert text.endswith("\n") and '"' not in text
    parsed = list(csv.DictReader(text.splitlines()))
    assert len(parsed) == len(rows)
    for got, want in zip(parsed, rows):
        m, n, k = int(got["m"]), int(got["n"]), int(got["k"])
        assert (m, n, k, got["dtype"]) == want[:4]
        seconds, tflops = float(got["seconds"]), float(got["tflops"])
        assert abs(seconds / want[4] - 1) < 1e-5 and abs(tflops / want[5] - 1) < 1e-5
        assert abs(2.0 * m * n * k / seconds / 1e12 / tflops - 1) < 1e-4
    print(f"# self-test ok: {len(rows)} rows written and read back from {path}")
    print("\n".join(lines[:4]))


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0],
                                     formatter_class=argparse.RawDescriptionHelpFormatter,
                                     epilog=__doc__.split("\n", 2)[2])
    mc.add_common_args(parser, "gemm.csv", default_warmup=10, default_repeats=30)
    parser.add_argument("--dtypes", type=mc.str_list, default=None,
                        help="bf16,fp16,fp8 (default: all three; --quick: bf16,fp8)")
    parser.add_argument("--shapes", type=parse_shapes, default=None,
                        help="MxNxK,... instead of the default sweep")
    parser.add_argument("--models", type=mc.str_list, default=["8b", "70b"],
                        help="Llama-3 sizes of the default sweep (default: 8b,70b)")
    parser.add_argument("--tp", type=mc.int_list, default=[1],
                        help="tensor-parallel degrees of the projection shapes (default: 1)")
    parser.add_argument("--backward", action=argparse.BooleanOptionalAction, default=True,
                        help="add the data- and weight-gradient shapes for m >= 512 (default: on)")
    parser.add_argument("--flush-l2", action="store_true",
                        help="evict the L2 cache before every timed GEMM (one GEMM per repeat)")
    parser.add_argument("--fp8-fast-accum", action="store_true",
                        help="fp8 with cuBLASLt fast accumulation (as inference engines run it)")
    parser.add_argument("--self-test", action="store_true",
                        help="no GPU needed: write synthetic rows with the CSV writer and check them")
    args = parser.parse_args()
    if args.self_test:
        path = args.out if args.out != "gemm.csv" else os.path.join(tempfile.gettempdir(), "gemm_selftest.csv")
        self_test(path)
        return
    unknown = [m for m in args.models if m not in LLAMA3]
    if unknown:
        sys.exit(f"error: unknown model(s) {unknown}; use {','.join(LLAMA3)}")
    mc.resolve_quick(args)
    run(args)


if __name__ == "__main__":
    main()
