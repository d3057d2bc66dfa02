#!/usr/bin/env python3
"""Writes docs/data/serving/b200.csv: the B200 serving calibration runs (the shared
serving-calibration-b200.csv, unchanged) with four columns more, what each run's launch
script set beyond the file's columns, read from SemiAnalysisAI/InferenceX at the commit in
force on the run's measured date (docs/serving.md "Serving calibration groups"):

  memory_fraction          the engine's memory argument: SGLang --mem-fraction-static,
                           TensorRT-LLM kv_cache_config.free_gpu_memory_fraction ("" where the
                           script leaves the engine's default)
  recv_interval            SGLang --scheduler-recv-interval
  batch_wait_iters,
  batch_wait_tokens_ratio  TensorRT-LLM batch_wait_timeout_iters, batch_wait_max_tokens_ratio
  adp_balance_iters        TensorRT-LLM attention_dp_config timeout_iters, with enable_balance
                           (batching_wait_iters 0 in every launch that sets it)
Not written: SGLang's --max-running-requests. The scripts set 128 at TP 8 (32 at TP 4, 512
for EAGLE), never below a run's concurrency but at TP 8 from 256 clients, and there the
measured runs contradict it: 1k/1k at 512 clients has a mean TTFT of 3.1 s where 128 slots
would queue three clients in four for a whole 28 s request (docs/serving.md "Serving
calibration groups"). The engine's own default applies.

  python3 scripts/b200_settings.py ../shared/serving-calibration-b200.csv docs/data/serving/b200.csv
"""
import csv, sys

src, dst = sys.argv[1], sys.argv[2]
rows = list(csv.DictReader(open(src)))


def settings(r):
    tp, c = int(r["tp"]), int(r["concurrency"])
    isl, osl = int(r["isl"]), int(r["osl"])
    dp = int(r["attention_dp"]) > 1
    mem = recv = wait = ratio = balance = ""
    if r["engine"] == "sglang":
        # benchmarks/dsr1_fp8_b200_docker.sh (189ae51cc, d27433dff), single_node/dsr1_fp8_b200.sh
        # and dsr1_fp8_b200_mtp.sh (12ba0ae07): TP 8 at 0.82 with the receive interval 30 from
        # 16 clients (10 below); TP 4 at 0.95 with 10
        mem = "0.95" if tp == 4 else "0.82"
        recv = "30" if tp == 8 and c >= 16 else "10"
    elif r["engine"] == "trtllm" and "Llama" in r["model"]:
        # benchmarks/70b_fp8_b200_trt_slurm.sh (9596d23d7): batch waiting at 1k/1k below TP 8;
        # the KV fraction left at the engine's 0.9
        if isl == 1024 and osl == 1024 and tp < 8:
            wait, ratio = "20", "0.9"
    elif r["engine"] == "trtllm":
        # benchmarks/dsr1_fp8_b200_trt_slurm.sh (e06929c70, f6a9d0b6a), _trt_mtp_slurm.sh
        # (008b91a9d): 0.8; dsr1_fp8_b200_trt.sh (dcc0f53a8, 1.2.0rc6.post2): 0.8, 0.75 at
        # 8k/1k on TP 4, 0.7 at 1k/8k from 256 clients, batch waiting at 1k/1k from 64;
        # dsr1_fp8_b200_trt_mtp.sh (d7dbd045b, 1.2.0rc6.post3): 0.8, 0.7 with attention DP
        mem = "0.8"
        if r["engine_image"] == "1.2.0rc6.post2":
            if isl == 8192 and osl == 1024 and tp == 4:
                mem = "0.75"
            if isl == 1024 and osl == 8192 and c >= 256:
                mem = "0.7"
            if isl == 1024 and osl == 1024 and c >= 64:
                wait, ratio = "40", "0.8"
        if r["engine_image"] == "1.2.0rc6.post3" and dp:
            mem = "0.7"
        # every one of these scripts with attention DP: "attention_dp_config:
        # {batching_wait_iters: 0, enable_balance: true, timeout_iters: 60}"
        if dp:
            balance = "60"
    return {"memory_fraction": mem, "recv_interval": recv, "batch_wait_iters": wait,
            "batch_wait_tokens_ratio": ratio, "adp_balance_iters": balance}


fields = list(rows[0].keys()) + ["memory_fraction", "recv_interval", "batch_wait_iters",
                                 "batch_wait_tokens_ratio", "adp_balance_iters"]
with open(dst, "w", newline="") as f:
    w = csv.DictWriter(f, fieldnames=fields, lineterminator="\n")
    w.writeheader()
    for r in rows:
        w.writerow({**r, **settings(r)})
