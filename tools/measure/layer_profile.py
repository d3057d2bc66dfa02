#!/usr/bin/env python3
"""Kernel-time profile of one decoder layer -> layer_profile.csv (kernel_class,calls,seconds + the shape).

One Llama-style decoder layer (pre-norm: RMSNorm, fused QKV projection, rotary embedding,
causal GQA attention through SDPA, output projection, residual add, RMSNorm, fused
gate+up projection, SwiGLU, down projection, residual add), forward and backward, in
bf16, run under torch.profiler with CUDA activity. Every GPU kernel (and memcpy/memset)
of the profiled iterations is put in one class:
  gemm, attention, norm, rotary, activation, elementwise, reduce/softmax, memcpy, other
  calls   = kernels of that class in one forward + backward
  seconds = their summed GPU time in one forward + backward
and one more row:
  gap     = wall time of one forward + backward (CUDA events, median, profiler off) minus
            the summed kernel time: the GPU idle between kernels (launch and Python
            overhead); calls is 0
All the classes are written, with 0 where a class has no kernel. Every row also carries the
layer's shape (hidden,heads,kv_heads,ffn,seq,micro_batch,dtype), so that `ridgeline calibrate`
can time the same layer from its components and name what the measurement adds.

How a kernel is classed. The layer marks its non-GEMM parts (norm, rotary, attention,
activation, the residual adds as elementwise) with profiler markers, in the forward and,
through identity autograd functions at each part's inputs and outputs, in the backward
(the autograd engine runs the backward nodes in reverse creation order, so a part's
backward kernels are launched between its two markers). A kernel launched inside a part
gets the part's class; any other kernel is classed by a regular expression on its name
(CLASS_PATTERNS below). Eager PyTorch runs an RMSNorm or a rotary embedding as several
generic element-wise and reduction kernels, whose names say nothing of the layer; the
markers put them where they belong. --verbose lists every kernel name with its class.

  python3 tools/measure/layer_profile.py [--quick] [--out layer_profile.csv]
      [--hidden 4096] [--heads 32] [--kv-heads 8] [--ffn 14336] [--seq 4096]
      [--micro-batch 1] [--trace trace.json] [--verbose]
  (defaults: a Llama-3 8B layer; a 70B layer: --hidden 8192 --heads 64 --ffn 28672)

Expected run time on an H100: 10-20 seconds (mostly start-up).
"""
import argparse
import bisect
import collections
import csv
import json
import os
import re
import statistics
import sys
import tempfile
import warnings

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import measure_common as mc  # noqa: E402
from attention_sweep import sdpa_attention  # noqa: E402

COLUMNS = ["kernel_class", "calls", "seconds", "hidden", "heads", "kv_heads", "ffn", "seq",
           "micro_batch", "dtype"]
CLASSES = ["gemm", "attention", "norm", "rotary", "activation", "elementwise",
           "reduce/softmax", "memcpy", "other"]
# First match wins, on the lower-cased kernel name. Order matters: FlashAttention kernels
# are CUTLASS kernels (attention before gemm), cuBLAS epilogues may name an activation
# (gemm before activation), copies are element-wise kernels (memcpy before elementwise).
CLASS_PATTERNS = [
    ("memcpy", r"^memcpy|^memset|copy_kernel|catarraybatchedcopy"),
    ("attention", r"flash|fmha|attention|attn|sdpa"),
    ("gemm", r"gemm|gemv|matmul|cutlass|cublas|xmma|wgmma|nvjet|splitk"),
    ("norm", r"rms_?norm|layer_?norm|group_?norm|batch_?norm"),
    ("rotary", r"rotary|rope_"),
    ("activation", r"silu|swiglu|gelu|swish|sigmoid|relu"),
    ("reduce/softmax", r"softmax|reduce|welford|cross_?entropy|nll_loss|triton_red|triton_per"),
    ("elementwise", r"elementwise|vectorized|unrolled|pointwise|triton_poi|fill|dropout"),
]
CLASS_REGEX = [(c, re.compile(p)) for c, p in CLASS_PATTERNS]
MARK = "rl_scope."  # profiler marker names: rl_scope.begin:<class>, rl_scope.end:<class>


def class_of_name(name):
    lower = name.lower()
    for cls, regex in CLASS_REGEX:
        if regex.search(lower):
            return cls
    return "other"


# ----------------------------------------------------------------------------- scopes
def _mark(kind, scope):
    """A zero-length profiler range, a point on the CPU timeline of the current thread."""
    import torch

    with torch.profiler.record_function(f"{MARK}{kind}:{scope}"):
        pass


def _scope_functions():
    """The two identity autograd functions that mark a part's backward: the gradient reaches
    the part's outputs first (begin) and leaves through its inputs last (end)."""
    import torch

    class ScopeIn(torch.autograd.Function):
        @staticmethod
        def forward(ctx, scope, *xs):
            ctx.scope = scope
            return tuple(x.view_as(x) for x in xs)

        @staticmethod
        def backward(ctx, *grads):
            _mark("end", ctx.scope)
            return (None, *grads)

    class ScopeOut(torch.autograd.Function):
        @staticmethod
        def forward(ctx, scope, *ys):
            ctx.scope = scope
            return tuple(y.view_as(y) for y in ys)

        @staticmethod
        def backward(ctx, *grads):
            _mark("begin", ctx.scope)
            return (None, *grads)

    return ScopeIn, ScopeOut


def scoped(scope, fn, *xs):
    """fn(*xs), its forward and backward kernels marked as class `scope` while profiling
    (the marks cost CPU time, so the unprofiled wall-time runs go without them)."""
    import torch

    if not _PROFILING:
        return fn(*xs)
    scope_in, scope_out = _SCOPES
    xs = scope_in.apply(scope, *xs)
    _mark("begin", scope)
    ys = fn(*xs)
    _mark("end", scope)
    single = torch.is_tensor(ys)
    ys = scope_out.apply(scope, *((ys,) if single else ys))
    return ys[0] if single else ys


_SCOPES = None  # (ScopeIn, ScopeOut), made once torch is imported
_PROFILING = False  # scoped() marks only while the profiler runs


# ----------------------------------------------------------------------------- the layer
def build_layer(args, device, dtype):
    """The layer as plain tensors and a forward function (no nn.Module needed)."""
    import torch
    import torch.nn.functional as F

    from elementwise_sweep import rms_norm_fn, rotate_half_rope

    H, nq, nkv, ffn, S = args.hidden, args.heads, args.kv_heads, args.ffn, args.seq
    d = H // nq

    def weight(*shape):
        return (torch.randn(*shape, device=device, dtype=dtype) * 0.02).requires_grad_()

    params = {
        "norm1": torch.ones(H, device=device, dtype=dtype, requires_grad=True),
        "wqkv": weight((nq + 2 * nkv) * d, H),
        "wo": weight(H, nq * d),
        "norm2": torch.ones(H, device=device, dtype=dtype, requires_grad=True),
        "w_gate_up": weight(2 * ffn, H),
        "w_down": weight(H, ffn),
    }
    # Rotary tables [1, S, 1, d] (base 500000 as Llama-3), broadcast over batch and heads.
    inv_freq = 1.0 / (500000.0 ** (torch.arange(0, d, 2, device=device).float() / d))
    angles = torch.outer(torch.arange(S, device=device).float(), inv_freq)
    angles = torch.cat((angles, angles), dim=-1)
    cos = angles.cos().to(dtype)[None, :, None, :]
    sin = angles.sin().to(dtype)[None, :, None, :]
    norm_name, rms_norm = rms_norm_fn(H)
    attend = choose_attention(args, device, dtype)

    def attention(q, k, v):
        b, s = q.shape[0], q.shape[1]
        return attend(q, k, v).transpose(1, 2).reshape(b, s, nq * d)

    def swiglu(gate_up):
        gate, up = gate_up.chunk(2, dim=-1)
        return F.silu(gate) * up

    def forward(x):
        b, s, _ = x.shape
        h = scoped("norm", lambda t: rms_norm(t, params["norm1"]), x)
        q, k, v = F.linear(h, params["wqkv"]).split([nq * d, nkv * d, nkv * d], dim=-1)
        q, k, v = q.view(b, s, nq, d), k.view(b, s, nkv, d), v.view(b, s, nkv, d)
        q, k = scoped("rotary", lambda q, k: (rotate_half_rope(q, cos, sin),
                                              rotate_half_rope(k, cos, sin)), q, k)
        a = F.linear(scoped("attention", attention, q, k, v), params["wo"])
        x = scoped("elementwise", torch.add, x, a)
        h = scoped("norm", lambda t: rms_norm(t, params["norm2"]), x)
        y = F.linear(scoped("activation", swiglu, F.linear(h, params["w_gate_up"])), params["w_down"])
        return scoped("elementwise", torch.add, x, y)

    return forward, params, norm_name


def choose_attention(args, device, dtype):
    """The first SDPA backend (flash, then efficient) that runs this layer's causal GQA
    attention forward and backward: native GQA where it can, k/v expanded otherwise."""
    import torch

    groups = args.heads // args.kv_heads
    modes = ["native", "expand"] if groups > 1 else ["none"]
    d = args.hidden // args.heads
    shape = (args.micro_batch, args.seq)
    reasons = []
    for backend in ("flash", "efficient"):
        for mode in modes:
            attend = sdpa_attention(backend, True, mode)
            try:
                q = torch.randn(*shape, args.heads, d, device=device, dtype=dtype, requires_grad=True)
                kv = torch.randn(*shape, args.kv_heads, d, device=device, dtype=dtype, requires_grad=True)
                with warnings.catch_warnings():
                    warnings.simplefilter("ignore")
                    out = attend(q, kv, kv)
                    out.backward(torch.ones_like(out))
                torch.cuda.synchronize()
            except (RuntimeError, TypeError) as exc:
                reasons.append(f"{backend}/{mode}: {str(exc).strip().splitlines()[0] if str(exc).strip() else type(exc).__name__}")
                continue
            print(f"# attention: sdpa {backend}" + ("" if mode == "none" else f" (GQA {mode})"))
            return attend
    sys.exit("error: no SDPA backend runs this attention: " + "; ".join(reasons))


# ----------------------------------------------------------------------------- trace
def classify_trace(path):
    """Reads a Chrome trace written by torch.profiler and returns
    {class: [calls, microseconds]} and {kernel name: [class, calls, microseconds]}."""
    with open(path) as f:
        trace = json.load(f)
    events = trace["traceEvents"] if isinstance(trace, dict) else trace

    marks = collections.defaultdict(list)  # CPU thread -> [(ts, kind, scope)]
    launches = {}  # correlation id -> (CPU thread, ts) of the launch call
    kernels = []  # (name, duration us, correlation id)
    for e in events:
        if e.get("ph") != "X":
            continue
        cat, name, args = str(e.get("cat", "")).lower(), e.get("name", ""), e.get("args") or {}
        if cat == "user_annotation" and name.startswith(MARK):
            kind, _, scope = name[len(MARK):].partition(":")
            marks[e.get("tid")].append((float(e["ts"]), kind, scope))
        elif cat in ("cuda_runtime", "cuda_driver") and "correlation" in args:
            launches[args["correlation"]] = (e.get("tid"), float(e["ts"]))
        elif cat in ("kernel", "gpu_memcpy", "gpu_memset"):
            kernels.append((name, float(e.get("dur", 0)), args.get("correlation")))

    # Pair begin/end marks into [begin, end] intervals per thread (the parts do not nest).
    intervals = {}
    for tid, points in marks.items():
        points.sort()
        spans, open_at = [], {}
        for ts, kind, scope in points:
            if kind == "begin":
                open_at[scope] = ts
            elif scope in open_at:
                spans.append((open_at.pop(scope), ts, scope))
        spans.sort()
        intervals[tid] = ([s[0] for s in spans], spans)

    def scope_of(correlation):
        if correlation not in launches:
            return None
        tid, ts = launches[correlation]
        if tid not in intervals:
            return None
        starts, spans = intervals[tid]
        i = bisect.bisect_right(starts, ts) - 1
        if i >= 0 and spans[i][0] <= ts <= spans[i][1]:
            return spans[i][2]
        return None

    per_class = {c: [0, 0.0] for c in CLASSES}
    per_kernel = {}
    for name, dur, correlation in kernels:
        cls = scope_of(correlation) or class_of_name(name)
        per_class[cls][0] += 1
        per_class[cls][1] += dur
        entry = per_kernel.setdefault(name, [cls, 0, 0.0])
        entry[1] += 1
        entry[2] += dur
    return per_class, per_kernel


# ----------------------------------------------------------------------------- the file
def layer_shape(args):
    return (args.hidden, args.heads, args.kv_heads, args.ffn, args.seq, args.micro_batch,
            args.dtype)


def write_profile(path, per_class, n, wall_us, gap_us, shape):
    """One row per class (calls and seconds per forward + backward over n profiled
    iterations), then the gap; the shape on every row. Prints the same as a table."""
    print(f"# {'class':<15} {'calls':>6} {'ms':>9} {'% wall':>7}")
    with mc.CsvWriter(path, COLUMNS) as out:
        for cls in CLASSES:
            calls, us = per_class[cls]
            out.row(cls, round(calls / n), us / n * 1e-6, *shape)
            print(f"  {cls:<15} {round(calls / n):>6} {us / n / 1e3:>9.3f} {100 * us / n / wall_us:>7.1f}")
        out.row("gap", 0, max(gap_us, 0.0) * 1e-6, *shape)
        print(f"  {'gap':<15} {0:>6} {max(gap_us, 0) / 1e3:>9.3f} {100 * max(gap_us, 0) / wall_us:>7.1f}")


def self_test(path):
    """Without torch or a GPU: writes a profile of synthetic timings (not a measurement: a
    fixed share per class) with the real writer, reads it back and checks the format that
    `ridgeline calibrate` reads."""
    shape = (4096, 32, 8, 14336, 4096, 1, "bf16")
    share = {"gemm": 0.70, "attention": 0.12, "norm": 0.03, "rotary": 0.02, "activation": 0.03,
             "elementwise": 0.03, "reduce/softmax": 0.0, "memcpy": 0.01, "other": 0.0}
    wall_us = 20000.0
    per_class = {c: [0 if share[c] == 0 else 10 * (i + 1), share[c] * wall_us * 3]
                 for i, c in enumerate(CLASSES)}
    gap_us = wall_us * (1 - sum(share.values()))
    write_profile(path, per_class, 3, wall_us, gap_us, shape)
    with open(path, newline="") as f:
        text = f.read()
    assert text.split("\n")[0] == ",".join(COLUMNS)
    rows = list(csv.DictReader(text.splitlines()))
    assert [r["kernel_class"] for r in rows] == CLASSES + ["gap"]
    for r in rows:
        assert tuple(r[c] for c in COLUMNS[3:9]) == tuple(str(v) for v in shape[:6])
        assert r["dtype"] == shape[6]
    total = sum(float(r["seconds"]) for r in rows)
    assert abs(total / (wall_us * 1e-6) - 1) < 1e-5, total
    print(f"# self-test ok: {len(rows)} rows written and read back from {path}")


# ----------------------------------------------------------------------------- main
def run(args):
    global _SCOPES, _PROFILING
    mc.require_torch()
    import torch
    from torch.profiler import ProfilerActivity, profile

    device = mc.setup_device(args.device)
    mc.print_environment("layer_profile.py", device)
    _SCOPES = _scope_functions()
    dtype = {"bf16": torch.bfloat16, "fp16": torch.float16}[args.dtype]

    forward, params, norm_name = build_layer(args, device, dtype)
    x = torch.randn(args.micro_batch, args.seq, args.hidden, device=device, dtype=dtype,
                    requires_grad=True)
    grad_out = torch.randn_like(x)
    print(f"# layer: hidden {args.hidden}, heads {args.heads}/{args.kv_heads}, ffn {args.ffn},"
          f" seq {args.seq}, micro-batch {args.micro_batch}, {args.dtype}; norm {norm_name}")

    def step():
        forward(x).backward(grad_out)
        x.grad = None  # set_to_none: no accumulation kernels from one step to the next
        for p in params.values():
            p.grad = None

    # Wall time of one forward + backward, profiler off: iterations back to back, as in training.
    for _ in range(args.warmup):
        step()
    torch.cuda.synchronize()
    events = [(torch.cuda.Event(enable_timing=True), torch.cuda.Event(enable_timing=True))
              for _ in range(args.repeats)]
    for start, end in events:
        start.record()
        step()
        end.record()
    torch.cuda.synchronize()
    wall_us = statistics.median(s.elapsed_time(e) * 1e3 for s, e in events)

    # Kernel times, profiler on, parts marked.
    _PROFILING = True
    step()  # one marked iteration before the profiler starts
    torch.cuda.synchronize()
    with profile(activities=[ProfilerActivity.CPU, ProfilerActivity.CUDA]) as prof:
        for _ in range(args.profile_iters):
            step()
        torch.cuda.synchronize()
    _PROFILING = False
    trace = args.trace or os.path.join(tempfile.mkdtemp(prefix="layer_profile_"), "trace.json")
    prof.export_chrome_trace(trace)
    per_class, per_kernel = classify_trace(trace)
    if args.trace:
        print(f"# trace: {trace} (open in https://ui.perfetto.dev)")
    else:
        os.remove(trace)
        os.rmdir(os.path.dirname(trace))

    n = args.profile_iters
    kernel_us = sum(us for _, us in per_class.values()) / n
    if kernel_us == 0:
        sys.exit("error: the profiler recorded no GPU kernel (is CUPTI available to torch?)")
    gap_us = wall_us - kernel_us
    if gap_us < 0:
        print(f"# note: kernel time exceeds the wall time by {-gap_us:.0f} us (kernels overlapped"
              " on several streams, or the clock moved between the runs); gap written as 0")
    write_profile(args.out, per_class, n, wall_us, gap_us, layer_shape(args))
    print(f"# wall {wall_us / 1e3:.3f} ms per forward + backward (median of {args.repeats}),"
          f" kernels {kernel_us / 1e3:.3f} ms (mean of {n} profiled)")
    if args.verbose:
        print(f"# {'class':<15} {'calls':>6} {'ms':>9}  kernel")
        for name, (cls, calls, us) in sorted(per_kernel.items(), key=lambda kv: -kv[1][2]):
            print(f"#  {cls:<15} {calls / n:>6.1f} {us / n / 1e3:>9.3f}  {name[:160]}")


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0],
                                     formatter_class=argparse.RawDescriptionHelpFormatter,
                                     epilog=__doc__.split("\n", 2)[2])
    mc.add_common_args(parser, "layer_profile.csv", default_warmup=5, default_repeats=20)
    parser.add_argument("--hidden", type=int, default=4096, help="hidden size (default: 4096)")
    parser.add_argument("--heads", type=int, default=32, help="query heads (default: 32)")
    parser.add_argument("--kv-heads", type=int, default=8, help="key/value heads (default: 8)")
    parser.add_argument("--ffn", type=int, default=14336, help="FFN width (default: 14336)")
    parser.add_argument("--seq", type=int, default=4096, help="sequence length (default: 4096)")
    parser.add_argument("--micro-batch", type=int, default=1, help="sequences (default: 1)")
    parser.add_argument("--dtype", choices=["bf16", "fp16"], default="bf16")
    parser.add_argument("--profile-iters", type=int, default=None,
                        help="forward + backward iterations under the profiler (default: 5; --quick: 3)")
    parser.add_argument("--trace", default=None, help="also keep the Chrome trace at this path")
    parser.add_argument("--verbose", action="store_true", help="list every kernel with its class")
    parser.add_argument("--self-test", action="store_true",
                        help="no GPU, no torch: write a synthetic profile with the real writer to"
                             " --out and check it")
    args = parser.parse_args()
    if args.self_test:
        self_test(args.out)
        return
    if args.hidden % args.heads or args.heads % args.kv_heads or (args.hidden // args.heads) % 2:
        sys.exit("error: hidden must be a multiple of heads (even head dim), heads of kv-heads")
    mc.resolve_quick(args)
    if args.profile_iters is None:
        args.profile_iters = 3 if args.quick else 5
    if args.profile_iters < 1:
        sys.exit("error: --profile-iters must be >= 1")
    run(args)


if __name__ == "__main__":
    main()
