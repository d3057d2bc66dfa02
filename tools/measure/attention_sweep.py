#!/usr/bin/env python3
"""Attention forward/backward sweep -> attention.csv
(columns batch,heads,kv_heads,seq,head_dim,causal,dtype,fwd_seconds,bwd_seconds).

One row per configuration: self-attention of `batch` sequences of `seq` tokens, `heads`
query heads sharing `kv_heads` key/value heads (GQA; kv_heads = heads is plain multi-head
attention), head dimension `head_dim`, causal mask or none.
  fwd_seconds = median GPU time of the forward (as in training: inputs require grad)
  bwd_seconds = median GPU time of the backward alone: CUDA events at the end of the
                forward and at the end of torch.autograd.grad(out, (q, k, v), grad), so
                the backward is bracketed directly (no subtraction); grads are returned,
                never accumulated into .grad
  causal      = true | false
FLOPs for reference (printed, not written): forward 4 b h s^2 d (half of it causal), backward
2.5x the forward.

Backends (--backend):
  sdpa         torch.nn.functional.scaled_dot_product_attention (default), trying the SDPA
               kernels of --sdpa-backends in order (default flash, then efficient) and
               keeping the first that runs; the one that ran is printed on each row.
               GQA uses enable_gqa=True where the torch and the kernel support it, else k/v
               are expanded to `heads` with repeat_interleave inside the timed region (the
               copy and its gradient's reduction are part of what such a model pays; the
               row says "expand").
  flash_attn   FlashAttention-2's flash_attn_func (pip package flash-attn), GQA native
  flash_attn3  FlashAttention-3's flash_attn_func (flash_attn_interface, Hopper), GQA native
Tensors are made in the [batch, seq, heads, head_dim] layout of a model's QKV projection;
SDPA gets the transposed views, as Llama-style models pass them.

By default the batch is --tokens / seq (16384 tokens per configuration), so every row does a
comparable amount of work; --batch fixes it instead.

  python3 tools/measure/attention_sweep.py [--quick] [--out attention.csv]
      [--seqs 512,...,16384] [--head-dims 64,128] [--heads 32:8,64:8,32:32]
      [--backend sdpa|flash_attn|flash_attn3] [--sdpa-backends flash,cudnn,efficient,math]

Expected run time on an H100: 1-2 minutes for the default sweep, well under a minute with --quick.
"""
import argparse
import os
import statistics
import sys
import warnings

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import measure_common as mc  # noqa: E402

COLUMNS = ["batch", "heads", "kv_heads", "seq", "head_dim", "causal", "dtype",
           "fwd_seconds", "bwd_seconds"]
SDPA_BACKENDS = {"flash": "FLASH_ATTENTION", "efficient": "EFFICIENT_ATTENTION",
                 "cudnn": "CUDNN_ATTENTION", "math": "MATH"}


def head_configs(text):
    """'32:8,64:8' -> [(32, 8), (64, 8)] (query heads : key/value heads)."""
    configs = []
    for item in mc.str_list(text):
        h, _, kv = item.partition(":")
        try:
            h, kv = int(h), int(kv or h)
        except ValueError:
            raise argparse.ArgumentTypeError(f"heads are H:KV, got {item!r}")
        if h < 1 or kv < 1 or h % kv:
            raise argparse.ArgumentTypeError(f"query heads must be a multiple of kv heads: {item!r}")
        configs.append((h, kv))
    return configs


# ----------------------------------------------------------------------------- backends
def sdpa_only(name):
    """A context manager under which SDPA may use the one backend `name` only
    (torch.nn.attention.sdpa_kernel from torch 2.3, torch.backends.cuda.sdp_kernel before)."""
    import torch

    try:
        from torch.nn.attention import SDPBackend, sdpa_kernel
    except ImportError:  # torch 2.1 / 2.2
        if name == "cudnn":
            raise RuntimeError("the cuDNN SDPA backend needs a newer torch")
        return torch.backends.cuda.sdp_kernel(enable_flash=name == "flash",
                                              enable_mem_efficient=name == "efficient",
                                              enable_math=name == "math")
    backend = getattr(SDPBackend, SDPA_BACKENDS[name], None)
    if backend is None:
        raise RuntimeError(f"this torch has no SDPA backend {name}")
    return sdpa_kernel([backend])


def sdpa_attention(backend, causal, gqa):
    """SDPA on [b, s, h, d] tensors with one backend; gqa: 'none', 'native' or 'expand'."""
    import torch.nn.functional as F

    def attend(q, k, v):
        q, k, v = (x.transpose(1, 2) for x in (q, k, v))  # views [b, h, s, d]
        kwargs = {}
        if gqa == "native":
            kwargs["enable_gqa"] = True  # torch >= 2.5; a TypeError before
        elif gqa == "expand":
            groups = q.shape[1] // k.shape[1]
            k = k.repeat_interleave(groups, dim=1)
            v = v.repeat_interleave(groups, dim=1)
        with sdpa_only(backend):
            return F.scaled_dot_product_attention(q, k, v, is_causal=causal, **kwargs)

    return attend


def flash_attn_attention(version, causal):
    """flash_attn_func of FlashAttention-2 (package flash_attn) or -3 (flash_attn_interface),
    [b, s, h, d] in and out, GQA native. Raises ImportError when the package is absent."""
    if version == 2:
        from flash_attn import flash_attn_func
    else:
        from flash_attn_interface import flash_attn_func

    def attend(q, k, v):
        out = flash_attn_func(q, k, v, causal=causal)
        return out[0] if isinstance(out, tuple) else out  # some FA3 releases return (out, lse)

    return attend


def candidates(args, heads, kv_heads, causal):
    """(label, attention function) in the order to try them."""
    if args.backend == "flash_attn":
        return [("flash_attn 2", lambda: flash_attn_attention(2, causal))]
    if args.backend == "flash_attn3":
        return [("flash_attn 3", lambda: flash_attn_attention(3, causal))]
    gqa_modes = ["native", "expand"] if kv_heads < heads else ["none"]
    return [(f"sdpa {b}" + ("" if g == "none" else f" (GQA {g})"),
             lambda b=b, g=g: sdpa_attention(b, causal, g))
            for b in args.sdpa_backends for g in gqa_modes]


# ----------------------------------------------------------------------------- timing
def time_fwd_bwd(attend, q, k, v, grad, warmup, repeats):
    """Median forward and backward GPU seconds. Three CUDA events per repeat: before the
    forward, between forward and backward, after the backward; one synchronize at the end."""
    import torch

    inputs = (q, k, v)
    for _ in range(warmup):
        torch.autograd.grad(attend(q, k, v), inputs, grad)
    torch.cuda.synchronize()
    events = [[torch.cuda.Event(enable_timing=True) for _ in range(3)] for _ in range(repeats)]
    for start, middle, end in events:
        start.record()
        out = attend(q, k, v)
        middle.record()
        torch.autograd.grad(out, inputs, grad)
        end.record()
        del out
    torch.cuda.synchronize()
    fwd = statistics.median(s.elapsed_time(m) * 1e-3 for s, m, _ in events)
    bwd = statistics.median(m.elapsed_time(e) * 1e-3 for _, m, e in events)
    return fwd, bwd


def measure(args, device, dtype, batch, heads, kv_heads, seq, head_dim, causal):
    """Allocates q, k, v once, finds a backend that runs, times it. Returns
    (label, fwd_seconds, bwd_seconds), or (reason, None, None) when nothing ran."""
    import torch

    torch_dtype = {"bf16": torch.bfloat16, "fp16": torch.float16}[dtype]
    q = torch.randn(batch, seq, heads, head_dim, device=device, dtype=torch_dtype, requires_grad=True)
    k = torch.randn(batch, seq, kv_heads, head_dim, device=device, dtype=torch_dtype, requires_grad=True)
    v = torch.randn(batch, seq, kv_heads, head_dim, device=device, dtype=torch_dtype, requires_grad=True)
    reasons = []
    for label, make in candidates(args, heads, kv_heads, causal):
        try:
            attend = make()
            with warnings.catch_warnings():  # SDPA warns why a forced kernel cannot run
                warnings.simplefilter("ignore")
                out = attend(q, k, v)  # the probe: does this backend take this case?
                grad = torch.randn_like(out)
                torch.autograd.grad(out, (q, k, v), grad)
                del out
                torch.cuda.synchronize()
        except (RuntimeError, TypeError, ImportError, ValueError) as exc:
            if mc.is_oom(exc):
                return "out of memory", None, None
            reasons.append(f"{label}: {str(exc).strip().splitlines()[0] if str(exc).strip() else type(exc).__name__}")
            continue
        fwd, bwd = time_fwd_bwd(attend, q, k, v, grad, args.warmup, args.repeats)
        return label, fwd, bwd
    return "no backend ran (" + "; ".join(reasons) + ")", None, None


def run(args):
    device = mc.setup_device(args.device)
    mc.print_environment("attention_sweep.py", device)

    if args.quick:
        seqs, head_dims, heads = [1024, 4096], [128], [(32, 8)]
    else:
        seqs, head_dims, heads = args.seqs, args.head_dims, args.heads
    configs = [(h, kv, s, d, c) for d in head_dims for h, kv in heads for s in seqs
               for c in (True, False)]
    print(f"# {len(configs)} configurations x {args.dtypes}; backend {args.backend}"
          + (f" ({','.join(args.sdpa_backends)})" if args.backend == "sdpa" else "")
          + f"; warmup {args.warmup}, repeats {args.repeats}")
    print(f"# {'b':>3} {'h':>3} {'kv':>3} {'seq':>6} {'d':>4} {'causal':>6} {'dtype':>5}"
          f" {'fwd us':>9} {'bwd us':>9} {'fwd TF/s':>8} {'bwd TF/s':>8}  backend")

    with mc.CsvWriter(args.out, COLUMNS) as out:
        for dtype in args.dtypes:
            for h, kv, seq, d, causal in configs:
                batch = args.batch or max(1, args.tokens // seq)
                try:
                    label, fwd, bwd = measure(args, device, dtype, batch, h, kv, seq, d, causal)
                except RuntimeError as exc:  # out of memory while allocating or timing
                    label, fwd, bwd = ("out of memory" if mc.is_oom(exc) else str(exc).splitlines()[0]), None, None
                mc.free_memory()
                where = f"b={batch} h={h} kv={kv} seq={seq} d={d} causal={str(causal).lower()} {dtype}"
                if fwd is None:
                    print(f"# note: {where} skipped: {label}")
                    continue
                out.row(batch, h, kv, seq, d, causal, dtype, fwd, bwd)
                flops = 4.0 * batch * h * seq * seq * d * (0.5 if causal else 1.0)
                print(f"  {batch:>3} {h:>3} {kv:>3} {seq:>6} {d:>4} {str(causal).lower():>6} {dtype:>5}"
                      f" {fwd * 1e6:>9.1f} {bwd * 1e6:>9.1f} {flops / fwd / 1e12:>8.1f}"
                      f" {2.5 * flops / bwd / 1e12:>8.1f}  {label}", flush=True)


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0],
                                     formatter_class=argparse.RawDescriptionHelpFormatter,
                                     epilog=__doc__.split("\n", 2)[2])
    mc.add_common_args(parser, "attention.csv", default_warmup=5, default_repeats=20)
    parser.add_argument("--seqs", type=mc.int_list, default=[512, 1024, 2048, 4096, 8192, 16384],
                        help="sequence lengths (default: 512..16384)")
    parser.add_argument("--head-dims", type=mc.int_list, default=[64, 128],
                        help="head dimensions (default: 64,128)")
    parser.add_argument("--heads", type=head_configs, default=head_configs("32:8,64:8,32:32"),
                        help="query:kv head counts (default: 32:8,64:8,32:32)")
    parser.add_argument("--dtypes", type=mc.str_list, default=["bf16"],
                        help="bf16,fp16 (default: bf16)")
    parser.add_argument("--tokens", type=int, default=16384,
                        help="batch = tokens / seq, at least 1 (default: 16384)")
    parser.add_argument("--batch", type=int, default=0, help="a fixed batch instead of --tokens")
    parser.add_argument("--backend", choices=["sdpa", "flash_attn", "flash_attn3"], default="sdpa")
    parser.add_argument("--sdpa-backends", type=mc.str_list, default=["flash", "efficient"],
                        help="SDPA kernels to try in order: flash,cudnn,efficient,math "
                             "(default: flash,efficient)")
    args = parser.parse_args()
    bad = [b for b in args.sdpa_backends if b not in SDPA_BACKENDS]
    if bad or any(d not in ("bf16", "fp16") for d in args.dtypes):
        sys.exit(f"error: SDPA backends are {','.join(SDPA_BACKENDS)}; dtypes bf16,fp16")
    mc.resolve_quick(args)
    run(args)


if __name__ == "__main__":
    main()
