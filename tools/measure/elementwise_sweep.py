#!/usr/bin/env python3
"""Element-wise kernel sweep -> elementwise.csv (columns kernel,bytes,seconds).

The memory-bound kernels of a Llama layer, run as eager PyTorch runs them, at T tokens
(--tokens, default 1024..8192) of a hidden size H (--hidden, default 8192: Llama-3 70B).
  bytes   = what the kernel must read plus write at minimum (formulas below; s = bytes per
            element of --dtype, 2 for bf16); an eager implementation that makes several
            passes moves more, and its seconds say so
  seconds = median GPU time of one call (the L2 cache is flushed before every call by
            default, so small sizes are read from HBM, not from L2)
bytes / seconds is the bandwidth the kernel reaches; `copy` is the ceiling.

  kernel         what runs                                       bytes (minimum)
  rmsnorm        F.rms_norm (torch >= 2.4) else x*rsqrt(mean x^2)*w  2 T H s + H s
  rotary         q*cos + rotate_half(q)*sin on q [T, Hq, D] and  2 T (Hq + Hkv) D s + 2 T D s
                 k [T, Hkv, D] (D = H / Hq), tables [T, D]        (q, k read + written; cos, sin)
  swiglu         silu(a) * b, a and b [T, F] (F = --ffn)          3 T F s
  residual_add   x + r, [T, H]                                    3 T H s
  dropout        F.dropout(x, 0.1), [T, H]                        2 T H s (torch also writes a
                                                                  1-byte keep mask: not counted)
  softmax        softmax over the vocabulary, logits [T, V]       2 T V s
  cross_entropy  F.cross_entropy(logits [T, V], targets [T])      T V s + 8 T (int64 targets)
  fp8_cast       amax = |x|.max(); (x * 448 / amax) -> e4m3,      2 T H s + T H (current scaling:
                 [T, H] (when torch has float8_e4m3fn)            x read by the amax and by the cast)
  copy           y.copy_(x), [T, H]                               2 T H s

  python3 tools/measure/elementwise_sweep.py [--quick] [--out elementwise.csv]
      [--tokens 1024,2048,4096,8192] [--hidden 8192] [--heads 64] [--kv-heads 8]
      [--ffn 28672] [--vocab 128256] [--kernels rmsnorm,copy] [--no-flush-l2]

Expected run time on an H100: well under a minute (--quick: 8192 tokens only, seconds).
"""
import argparse
import os
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import measure_common as mc  # noqa: E402

COLUMNS = ["kernel", "bytes", "seconds"]
KERNELS = ["rmsnorm", "rotary", "swiglu", "residual_add", "dropout", "softmax",
           "cross_entropy", "fp8_cast", "copy"]


def rotate_half_rope(x, cos, sin):
    """Rotary embedding as Llama's reference code applies it: x * cos + rotate_half(x) * sin."""
    import torch

    x1, x2 = x.chunk(2, dim=-1)
    return x * cos + torch.cat((-x2, x1), dim=-1) * sin


def rms_norm_fn(hidden, eps=1e-5):
    """(description, fn(x, w)): torch's F.rms_norm when present, else the manual form
    (in fp32, as Llama's reference RMSNorm)."""
    import torch
    import torch.nn.functional as F

    if hasattr(F, "rms_norm"):
        return "F.rms_norm", lambda x, w: F.rms_norm(x, (hidden,), w, eps)

    def manual(x, w):
        xf = x.float()
        return (xf * torch.rsqrt(xf.pow(2).mean(-1, keepdim=True) + eps)).to(x.dtype) * w

    return "manual rms_norm (torch < 2.4)", manual


def make_kernel(name, tokens, args, device, dtype):
    """(fn, bytes) for one kernel at `tokens` tokens. The tensors are allocated here, once,
    and live in fn's closure: dropping fn frees them."""
    import torch
    import torch.nn.functional as F

    T, H, s = tokens, args.hidden, torch.finfo(dtype).bits // 8

    def randn(*shape):
        return torch.randn(*shape, device=device, dtype=dtype)

    if name == "rmsnorm":
        x, w = randn(T, H), randn(H)
        _, norm = rms_norm_fn(H)
        return (lambda: norm(x, w)), 2 * T * H * s + H * s
    if name == "rotary":
        d = H // args.heads
        q, k = randn(T, args.heads, d), randn(T, args.kv_heads, d)
        cos, sin = randn(T, 1, d), randn(T, 1, d)
        fn = lambda: (rotate_half_rope(q, cos, sin), rotate_half_rope(k, cos, sin))  # noqa: E731
        return fn, 2 * T * (args.heads + args.kv_heads) * d * s + 2 * T * d * s
    if name == "swiglu":
        a, b = randn(T, args.ffn), randn(T, args.ffn)
        return (lambda: F.silu(a) * b), 3 * T * args.ffn * s
    if name == "residual_add":
        x, r, y = randn(T, H), randn(T, H), randn(T, H)
        return (lambda: torch.add(x, r, out=y)), 3 * T * H * s
    if name == "dropout":
        x = randn(T, H)
        return (lambda: F.dropout(x, p=0.1, training=True)), 2 * T * H * s
    if name == "softmax":
        logits = randn(T, args.vocab)
        return (lambda: torch.softmax(logits, dim=-1)), 2 * T * args.vocab * s
    if name == "cross_entropy":
        logits = randn(T, args.vocab)
        targets = torch.randint(0, args.vocab, (T,), device=device)
        return (lambda: F.cross_entropy(logits, targets)), T * args.vocab * s + 8 * T
    if name == "fp8_cast":
        x = randn(T, H)

        def cast():
            amax = x.abs().amax().float()
            scale = 448.0 / torch.clamp(amax, min=1e-12)  # 448: the largest e4m3 value
            return (x * scale).to(torch.float8_e4m3fn)

        return cast, 2 * T * H * s + T * H
    if name == "copy":
        x, y = randn(T, H), randn(T, H)
        return (lambda: y.copy_(x)), 2 * T * H * s
    raise ValueError(name)


def run(args):
    mc.require_torch()
    import torch

    device = mc.setup_device(args.device)
    mc.print_environment("elementwise_sweep.py", device)
    dtype = {"bf16": torch.bfloat16, "fp16": torch.float16, "fp32": torch.float32}[args.dtype]

    kernels = args.kernels
    if "fp8_cast" in kernels and not hasattr(torch, "float8_e4m3fn"):
        print(f"# note: fp8_cast skipped: torch {torch.__version__} has no float8_e4m3fn")
        kernels = [k for k in kernels if k != "fp8_cast"]
    tokens = [8192] if args.quick else args.tokens
    flush = mc.L2Flush(device) if args.flush_l2 else None
    print(f"# rmsnorm runs {rms_norm_fn(args.hidden)[0]}")
    print(f"# tokens {tokens} x hidden {args.hidden}, heads {args.heads}/{args.kv_heads},"
          f" ffn {args.ffn}, vocab {args.vocab}, {args.dtype}; warmup {args.warmup},"
          f" repeats {args.repeats}, L2 flush {'on' if flush else 'off'}")
    print(f"# {'kernel':<14} {'tokens':>6} {'MB':>9} {'us':>9} {'GB/s':>7}")

    with mc.CsvWriter(args.out, COLUMNS) as out:
        for t in tokens:
            for name in kernels:
                seconds, failure = None, None
                try:
                    fn, nbytes = make_kernel(name, t, args, device, dtype)
                    seconds = mc.time_cuda(fn, args.warmup, args.repeats, flush)
                except RuntimeError as exc:
                    failure = "out of memory" if mc.is_oom(exc) else str(exc).splitlines()[0]
                fn = None  # frees this kernel's tensors
                mc.free_memory()
                if failure:
                    print(f"# note: {name} at {t} tokens skipped: {failure}")
                    continue
                out.row(name, nbytes, seconds)
                print(f"  {name:<14} {t:>6} {nbytes / 1e6:>9.1f} {seconds * 1e6:>9.1f}"
                      f" {nbytes / seconds / 1e9:>7.0f}", flush=True)


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0],
                                     formatter_class=argparse.RawDescriptionHelpFormatter,
                                     epilog=__doc__.split("\n", 2)[2])
    mc.add_common_args(parser, "elementwise.csv", default_warmup=5, default_repeats=30)
    parser.add_argument("--tokens", type=mc.int_list, default=[1024, 2048, 4096, 8192],
                        help="token counts T (default: 1024,2048,4096,8192; --quick: 8192)")
    parser.add_argument("--hidden", type=int, default=8192, help="hidden size H (default: 8192)")
    parser.add_argument("--heads", type=int, default=64, help="query heads (default: 64)")
    parser.add_argument("--kv-heads", type=int, default=8, help="key/value heads (default: 8)")
    parser.add_argument("--ffn", type=int, default=28672, help="FFN width F (default: 28672)")
    parser.add_argument("--vocab", type=int, default=128256, help="vocabulary V (default: 128256)")
    parser.add_argument("--dtype", choices=["bf16", "fp16", "fp32"], default="bf16")
    parser.add_argument("--kernels", type=mc.str_list, default=KERNELS,
                        help=f"subset to run (default: {','.join(KERNELS)})")
    parser.add_argument("--flush-l2", action=argparse.BooleanOptionalAction, default=True,
                        help="evict the L2 cache before every timed call (default: on)")
    args = parser.parse_args()
    unknown = [k for k in args.kernels if k not in KERNELS]
    if unknown:
        sys.exit(f"error: unknown kernel(s) {unknown}; known: {','.join(KERNELS)}")
    if args.hidden % args.heads or (args.hidden // args.heads) % 2:
        sys.exit("error: --hidden must be a multiple of --heads with an even head dimension")
    mc.resolve_quick(args)
    run(args)


if __name__ == "__main__":
    main()
