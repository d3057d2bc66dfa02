#!/usr/bin/env python3
"""Times the pieces of a dropless MoE layer on one GPU, as Megatron-Core runs them on one
expert-parallel rank: the router (gate GEMM, softmax, top-k), the token permutation and
un-permutation, and the routed experts' gated MLP as a grouped GEMM over the local experts,
forward and backward, against one dense GEMM of the same FLOPs.

  python3 tools/measure/moe_sweep.py [--quick] [--out moe.csv]

CSV columns:
  model,hidden,expert_ffn,experts,top_k,ep,tokens,part,method,seconds,tflops
  part:   router (gate GEMM + softmax + top-k, forward), permute (tokens sorted by expert and
          gathered), unpermute (scattered back and summed over top-k), experts_fwd,
          experts_bwd (the routed experts' three h x f matrices: gate+up fused, down)
  method: grouped (torch._grouped_mm over the local experts), loop (one torch.mm a local
          expert, as the sequential GEMM fallback runs), dense (one GEMM of the same FLOPs:
          the rate the experts would reach at full size), torch (router / permutation ops)
  tokens: tokens on this rank before routing; each local expert receives
          tokens x top_k / experts of them (uniform, force-balanced routing)
  tflops: the part's FLOPs / seconds (experts: 2 x 3 x routed tokens x hidden x expert_ffn
          forward, twice that backward); empty for the permutations

How time is taken: measure_common.time_cuda (CUDA events, warm-up, median of the repeats).
"""
import argparse
import sys

import measure_common as mc

# (name, hidden, expert_ffn, experts, top_k, expert parallelism as published)
MODELS = [
    ("qwen3-30b-a3b", 2048, 768, 128, 8, 8),
    ("qwen3-235b-a22b", 4096, 1536, 128, 8, 32),
    ("deepseek-v3", 7168, 2048, 256, 8, 64),
    ("gpt-oss-120b", 2880, 2880, 128, 4, 8),
    ("mixtral-8x7b", 4096, 14336, 8, 2, 8),
]


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    mc.add_common_args(parser, "moe.csv", 5, 20)
    parser.add_argument("--tokens", type=mc.int_list, default=[4096, 16384],
                        help="tokens on the rank before routing (default: 4096,16384)")
    args = parser.parse_args()
    mc.resolve_quick(args)
    if args.quick:
        args.tokens = [4096]
    mc.print_environment("moe_sweep.py", args.device)
    device = mc.setup_device(args.device)
    import torch

    grouped_ok = hasattr(torch, "_grouped_mm")
    if not grouped_ok:
        print("# note: torch._grouped_mm is not in this torch: grouped rows skipped")
    out = mc.CsvWriter(args.out, ["model", "hidden", "expert_ffn", "experts", "top_k", "ep",
                                  "tokens", "part", "method", "seconds", "tflops"])
    bf16 = torch.bfloat16
    print(f"# {'model':16s} {'T':>6s} {'M/exp':>6s} {'part':12s} {'method':8s} {'us':>9s} {'TFLOP/s':>8s}")
    for name, h, f, experts, k, ep in MODELS:
        local = max(1, experts // ep)
        for tokens in args.tokens:
            per_expert = max(1, tokens * k // experts)
            routed = per_expert * local  # tokens this rank's experts compute
            flops_fwd = 2.0 * 3 * routed * h * f

            def emit(part, method, seconds, flops):
                tf = flops / seconds / 1e12 if flops else ""
                out.row(name, h, f, experts, k, ep, tokens, part, method, seconds,
                        tf if tf == "" else float(tf))
                print(f"  {name:16s} {tokens:6d} {per_expert:6d} {part:12s} {method:8s} "
                      f"{seconds * 1e6:9.1f} {tf if tf == '' else f'{tf:8.1f}'}")

            try:
                # router: logits = x @ Wg, softmax, top-k (forward)
                x = torch.randn(tokens, h, device=device, dtype=bf16)
                wg = torch.randn(h, experts, device=device, dtype=bf16) * 0.02

                def router():
                    p = torch.softmax((x @ wg).float(), dim=-1)
                    return torch.topk(p, k, dim=-1)

                emit("router", "torch", mc.time_cuda(router, args.warmup, args.repeats),
                     2.0 * tokens * h * experts)
                # permutation: tokens sorted by expert id, gathered; un-permuted and summed
                _, idx = router()
                flat = idx.reshape(-1)
                order = torch.argsort(flat, stable=True)
                src = order // k

                def permute():
                    return x.index_select(0, src)

                emit("permute", "torch", mc.time_cuda(permute, args.warmup, args.repeats), 0)
                y = permute()
                probs = torch.rand(tokens * k, 1, device=device, dtype=bf16)

                def unpermute():
                    o = torch.zeros(tokens, h, device=device, dtype=bf16)
                    return o.index_add_(0, src, y * probs)

                emit("unpermute", "torch", mc.time_cuda(unpermute, args.warmup, args.repeats), 0)
                del x, wg, y, probs, idx, flat, order, src

                # the local experts' gated MLP: [routed, h] x [local, h, 2f] then [., f] x [local, f, h]
                a = torch.randn(routed, h, device=device, dtype=bf16, requires_grad=True)
                w1 = (torch.randn(local, h, 2 * f, device=device, dtype=bf16) * 0.02).requires_grad_()
                w2 = (torch.randn(local, f, h, device=device, dtype=bf16) * 0.02).requires_grad_()
                offs = torch.arange(1, local + 1, device=device, dtype=torch.int32) * per_expert

                def experts_grouped():
                    g = torch._grouped_mm(a, w1, offs=offs)
                    gate, up = g.chunk(2, dim=-1)
                    return torch._grouped_mm(torch.nn.functional.silu(gate) * up, w2, offs=offs)

                def experts_loop():
                    outs = []
                    for e in range(local):
                        s = a[e * per_expert:(e + 1) * per_expert]
                        g = s @ w1[e]
                        gate, up = g.chunk(2, dim=-1)
                        outs.append((torch.nn.functional.silu(gate) * up) @ w2[e])
                    return torch.cat(outs)

                methods = [("loop", experts_loop)]
                if grouped_ok:
                    methods.insert(0, ("grouped", experts_grouped))
                for method, fn in methods:
                    try:
                        emit("experts_fwd", method,
                             mc.time_cuda(fn, args.warmup, args.repeats), flops_fwd)
                        res = fn()
                        grad = torch.randn_like(res)

                        def fwd_bwd():
                            a.grad = w1.grad = w2.grad = None
                            fn().backward(grad)

                        t_both = mc.time_cuda(fwd_bwd, args.warmup, args.repeats)
                        t_fwd = mc.time_cuda(fn, args.warmup, args.repeats)
                        emit("experts_bwd", method, max(t_both - t_fwd, 1e-9), 2 * flops_fwd)
                        del res, grad
                    except RuntimeError as exc:
                        if mc.is_oom(exc):
                            raise
                        print(f"# note: {name} T={tokens} {method}: {str(exc).splitlines()[0]}")
                # one dense GEMM of the same FLOPs: [routed, h] x [h, 3f]
                wd = torch.randn(h, 3 * f, device=device, dtype=bf16)
                ad = a.detach()
                emit("experts_fwd", "dense",
                     mc.time_cuda(lambda: ad @ wd, args.warmup, args.repeats), flops_fwd)
                del a, w1, w2, wd, ad
            except RuntimeError as exc:
                if not mc.is_oom(exc):
                    raise
                print(f"# note: {name} T={tokens}: out of memory, skipped")
            mc.free_memory()
    print(f"# wrote {out.rows} rows to {args.out}")


if __name__ == "__main__":
    sys.exit(main())
