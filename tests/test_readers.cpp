// Measurement readers (core/io/readers): each sample of tests/data/samples/ is detected and
// read, with exact values checked; bad input gets an error naming the file, line and column.
#include "helpers.hpp"
#include "sample_layer_profile.hpp"

#include "core/io/readers.hpp"

#include <string>

#ifndef __EMSCRIPTEN__
#include <fstream>
#include <sstream>
#endif

using namespace rl;
using Catch::Contains;
using io::MeasurementFormat;

namespace {

// The samples, embedded: the WASM build of this suite runs under Node, where the files under
// the source folder cannot be read ("Embedded samples equal the files" checks them natively).
struct Sample {
  const char *file;
  MeasurementFormat format;
  const char *text;
};

// tests/data/samples/nccl_all_reduce_h100x8.txt
const char *const kNccl = R"sample(# nccl-tests version 2.17.9 nccl-headers=22803 nccl-library=22803
# Collective test starting: all_reduce_perf
# nThread 1 nGpus 8 minBytes 8 maxBytes 8589934592 step: 2(factor) warmup iters: 5 iters: 20 agg iters: 1 validation: 1 graph: 0
#
# Using devices
#  Rank  0 Group  0 Pid 412873 on dgx-h100-01 device  0 [0x18] NVIDIA H100 80GB HBM3
#  Rank  1 Group  0 Pid 412873 on dgx-h100-01 device  1 [0x2a] NVIDIA H100 80GB HBM3
#  Rank  2 Group  0 Pid 412873 on dgx-h100-01 device  2 [0x3a] NVIDIA H100 80GB HBM3
#  Rank  3 Group  0 Pid 412873 on dgx-h100-01 device  3 [0x5d] NVIDIA H100 80GB HBM3
#  Rank  4 Group  0 Pid 412873 on dgx-h100-01 device  4 [0x9a] NVIDIA H100 80GB HBM3
#  Rank  5 Group  0 Pid 412873 on dgx-h100-01 device  5 [0xab] NVIDIA H100 80GB HBM3
#  Rank  6 Group  0 Pid 412873 on dgx-h100-01 device  6 [0xba] NVIDIA H100 80GB HBM3
#  Rank  7 Group  0 Pid 412873 on dgx-h100-01 device  7 [0xdb] NVIDIA H100 80GB HBM3
NCCL version 2.28.3+cuda12.9
#
#                                                              out-of-place                       in-place          
#       size         count      type   redop    root     time   algbw   busbw  #wrong     time   algbw   busbw  #wrong 
#        (B)    (elements)                               (us)  (GB/s)  (GB/s)             (us)  (GB/s)  (GB/s)         
           8             2     float     sum      -1    13.85    0.00    0.00       0    13.59    0.00    0.00       0
          16             4     float     sum      -1    14.08    0.00    0.00       0    13.53    0.00    0.00       0
          32             8     float     sum      -1    14.00    0.00    0.00       0    13.74    0.00    0.00       0
          64            16     float     sum      -1    13.67    0.00    0.01       0    13.84    0.00    0.01       0
         128            32     float     sum      -1    13.65    0.01    0.02       0    13.79    0.01    0.02       0
         256            64     float     sum      -1    13.68    0.02    0.03       0    13.56    0.02    0.03       0
         512           128     float     sum      -1    13.94    0.04    0.06       0    14.08    0.04    0.06       0
        1024           256     float     sum      -1    13.75    0.07    0.13       0    13.68    0.07    0.13       0
        2048           512     float     sum      -1    14.15    0.14    0.25       0    14.23    0.14    0.25       0
        4096          1024     float     sum      -1    14.20    0.29    0.50       0    13.94    0.29    0.51       0
        8192          2048     float     sum      -1    14.66    0.56    0.98       0    13.87    0.59    1.03       0
       16384          4096     float     sum      -1    14.94    1.10    1.92       0    14.40    1.14    1.99       0
       32768          8192     float     sum      -1    15.13    2.17    3.79       0    14.97    2.19    3.83       0
       65536         16384     float     sum      -1    16.62    3.94    6.90       0    16.85    3.89    6.81       0
      131072         32768     float     sum      -1    18.23    7.19   12.58       0    18.38    7.13   12.48       0
      262144         65536     float     sum      -1    21.56   12.16   21.28       0    21.21   12.36   21.63       0
      524288        131072     float     sum      -1    26.23   19.99   34.97       0    25.73   20.38   35.66       0
     1048576        262144     float     sum      -1    32.56   32.21   56.36       0    32.52   32.25   56.43       0
     2097152        524288     float     sum      -1    41.66   50.34   88.10       0    41.32   50.75   88.81       0
     4194304       1048576     float     sum      -1    52.91   79.27  138.72       0    52.96   79.19  138.59       0
     8388608       2097152     float     sum      -1    70.89  118.34  207.09       0    70.63  118.78  207.86       0
    16777216       4194304     float     sum      -1   103.20  162.56  284.49       0   102.99  162.91  285.09       0
    33554432       8388608     float     sum      -1   164.68  203.75  356.57       0   164.78  203.64  356.36       0
    67108864      16777216     float     sum      -1   287.41  233.49  408.62       0   287.52  233.40  408.46       0
   134217728      33554432     float     sum      -1   531.95  252.31  441.55       0   531.47  252.54  441.94       0
   268435456      67108864     float     sum      -1  1020.57  263.03  460.30       0  1019.78  263.23  460.65       0
   536870912     134217728     float     sum      -1  1996.84  268.86  470.50       0  1996.95  268.85  470.48       0
  1073741824     268435456     float     sum      -1  3949.95  271.84  475.71       0  3950.05  271.83  475.70       0
  2147483648     536870912     float     sum      -1  7856.42  273.34  478.35       0  7856.74  273.33  478.33       0
  4294967296    1073741824     float     sum      -1  15670.1  274.09  479.65       0  15669.8  274.09  479.66       0
  8589934592    2147483648     float     sum      -1  31296.3  274.47  480.32       0  31295.8  274.48  480.33       0
# Out of bounds values : 0 OK
# Avg bus bandwidth    : 158.434 
#
# Collective test concluded: all_reduce_perf
#

)sample";

// tests/data/samples/gemm_h100_bf16_fp8.csv
const char *const kGemm = R"sample(m,n,k,dtype,seconds,tflops
1024,1024,1024,bf16,8.00106e-06,268.4
2048,2048,2048,bf16,3.35086e-05,512.7
4096,4096,4096,bf16,0.000199708,688.2
8192,8192,8192,bf16,0.00148003,742.898
16384,16384,16384,bf16,0.0117078,751.302
4096,6144,4096,bf16,0.00029384,701.601
4096,28672,4096,bf16,0.00130292,738.397
4096,4096,14336,bf16,0.000659767,729.1
1,28672,4096,bf16,8.37207e-05,2.80553
4096,4096,4096,fp8,0.000118024,1164.5
8192,8192,8192,fp8,0.000834101,1318.2
16384,16384,16384,fp8,0.00641208,1371.8
4096,28672,4096,fp8,0.000761917,1262.7
)sample";

// tests/data/samples/attention_h100_bf16.csv
const char *const kAttention =
    R"sample(batch,heads,seq,head_dim,causal,dtype,fwd_seconds,bwd_seconds,kv_heads
32,32,512,128,false,bf16,0.000415223,0.00138547,8
16,32,1024,128,false,bf16,0.000608137,0.00201523,8
8,32,2048,128,false,bf16,0.00103532,0.00341888,8
4,32,4096,128,false,bf16,0.00192222,0.00629011,8
2,32,8192,128,false,bf16,0.00373349,0.0121897,8
1,32,16384,128,false,bf16,0.00736691,0.0240068,8
8,32,2048,128,true,bf16,0.000690648,0.00228304,8
4,32,4096,128,true,bf16,0.00113118,0.0036946,8
2,32,8192,128,true,bf16,0.00203237,0.0065918,8
1,32,16384,128,true,bf16,0.00386472,0.0124661,8
)sample";

// tests/data/samples/elementwise_h100.csv
const char *const kElementwise = R"sample(kernel,bytes,seconds
copy,2147483648,0.000740967
scale,2147483648,0.000743512
add,3221225472,0.00109125
triad,3221225472,0.00108759
rmsnorm_bf16,2147483648,0.000795429
silu_mul_bf16,3221225472,0.00114124
rope_bf16,2147483648,0.000816441
copy,134217728,5.9394e-05
)sample";

const char *const kLayerProfile = test::kLayerProfileSample; // sample_layer_profile.hpp

// tests/data/samples/serving_runs_h100.csv
const char *const kServingCsv =
    R"sample(model,engine,engine_version,hardware,precision,tp,pp,isl,osl,concurrency,ttft_ms,tpot_ms
meta-llama/Llama-3.1-70B,vllm,,h100_sxm,fp8,2,1,1024,1024,4,121.31,17.407
meta-llama/Llama-3.1-70B,vllm,,h100_sxm,fp8,4,1,1024,1024,64,256.36,19.515
meta-llama/Llama-3.1-8B-Instruct,trtllm,1.0.0rc3,h100_sxm,bf16,1,1,1024,128,128,532.71,31.662
meta-llama/Llama-3.1-8B-Instruct,trtllm,1.0.0rc3,h100_sxm,bf16,4,1,1024,512,32,141.34,5.131
Qwen/Qwen3-32B,sglang,0.5.8.post1,h100_sxm,bf16,1,1,1024,128,16,6775.54,25.476
Qwen/Qwen3-32B,sglang,0.5.1.post1,h100_sxm,bf16,4,1,2048,128,16,783.32,13.098
)sample";

// tests/data/samples/vllm_llama31_70b_tp8_c16.json
const char *const kVllm =
    R"sample({"date": "20260514-101533", "endpoint_type": "vllm", "backend": "vllm", "label": null, "model_id": "meta-llama/Llama-3.1-70B-Instruct", "tokenizer_id": "meta-llama/Llama-3.1-70B-Instruct", "num_prompts": 160, "tensor_parallel_size": "8", "request_rate": "inf", "burstiness": 1.0, "max_concurrency": 16, "duration": 40.71, "completed": 160, "failed": 0, "total_input_tokens": 163840, "total_output_tokens": 40960, "request_throughput": 3.9302382706951606, "request_goodput": null, "output_throughput": 1006.1409972979611, "total_token_throughput": 5030.704986489806, "max_output_tokens_per_s": 1104.0, "max_concurrent_requests": 16, "rtfx": 0.0, "mean_ttft_ms": 187.41, "median_ttft_ms": 162.3, "std_ttft_ms": 71.24, "p99_ttft_ms": 402.77, "mean_tpot_ms": 14.92, "median_tpot_ms": 14.88, "std_tpot_ms": 0.41, "p99_tpot_ms": 16.02, "mean_itl_ms": 14.87, "median_itl_ms": 14.12, "std_itl_ms": 6.33, "p99_itl_ms": 43.08}
)sample";

// tests/data/samples/sglang_llama31_8b.jsonl
const char *const kSglang =
    R"sample({"backend": "sglang", "dataset_name": "random", "request_rate": Infinity, "max_concurrency": 8, "sharegpt_output_len": null, "random_input_len": 2048, "random_output_len": 256, "random_range_ratio": 1.0, "duration": 76.549773, "completed": 320, "total_input_tokens": 655360, "total_output_tokens": 81920, "total_output_tokens_retokenized": 81917, "request_throughput": 4.180296173983927, "input_throughput": 8561.246564319083, "output_throughput": 1070.1558205398853, "mean_e2e_latency_ms": 1858.0, "median_e2e_latency_ms": 1846.852, "std_e2e_latency_ms": 57.598, "p99_e2e_latency_ms": 2025.2200000000003, "mean_ttft_ms": 61.8, "median_ttft_ms": 57.474000000000004, "std_ttft_ms": 23.483999999999998, "p99_ttft_ms": 129.78, "mean_tpot_ms": 7.02, "median_tpot_ms": 7.00596, "std_tpot_ms": 0.16848, "p99_tpot_ms": 7.5114, "mean_itl_ms": 6.998939999999999, "median_itl_ms": 6.739199999999999, "std_itl_ms": 2.8781999999999996, "p95_itl_ms": 8.4942, "p99_itl_ms": 12.4, "concurrency": 7.856, "accept_length": null}
{"backend": "sglang", "dataset_name": "random", "request_rate": Infinity, "max_concurrency": 32, "sharegpt_output_len": null, "random_input_len": 2048, "random_output_len": 256, "random_range_ratio": 1.0, "duration": 26.471173, "completed": 320, "total_input_tokens": 655360, "total_output_tokens": 81920, "total_output_tokens_retokenized": 81917, "request_throughput": 12.08870084243134, "input_throughput": 24757.659325299384, "output_throughput": 3094.707415662423, "mean_e2e_latency_ms": 2570.0, "median_e2e_latency_ms": 2554.58, "std_e2e_latency_ms": 79.67, "p99_e2e_latency_ms": 2801.3, "mean_ttft_ms": 118.5, "median_ttft_ms": 110.20500000000001, "std_ttft_ms": 45.03, "p99_ttft_ms": 248.85000000000002, "mean_tpot_ms": 9.61, "median_tpot_ms": 9.590779999999999, "std_tpot_ms": 0.23063999999999998, "p99_tpot_ms": 10.2827, "mean_itl_ms": 9.58117, "median_itl_ms": 9.225599999999998, "std_itl_ms": 3.9400999999999997, "p95_itl_ms": 11.628099999999998, "p99_itl_ms": 31.7, "concurrency": 31.424, "accept_length": null}
{"backend": "sglang", "dataset_name": "random", "request_rate": Infinity, "max_concurrency": 64, "sharegpt_output_len": null, "random_input_len": 2048, "random_output_len": 256, "random_range_ratio": 1.0, "duration": 18.169373, "completed": 320, "total_input_tokens": 655360, "total_output_tokens": 81920, "total_output_tokens_retokenized": 81917, "request_throughput": 17.61222288268058, "input_throughput": 36069.83246372983, "output_throughput": 4508.7290579662285, "mean_e2e_latency_ms": 3528.0, "median_e2e_latency_ms": 3506.832, "std_e2e_latency_ms": 109.368, "p99_e2e_latency_ms": 3845.5200000000004, "mean_ttft_ms": 243.9, "median_ttft_ms": 226.82700000000003, "std_ttft_ms": 92.682, "p99_ttft_ms": 512.19, "mean_tpot_ms": 12.88, "median_tpot_ms": 12.85424, "std_tpot_ms": 0.30912, "p99_tpot_ms": 13.781600000000001, "mean_itl_ms": 12.84136, "median_itl_ms": 12.3648, "std_itl_ms": 5.2808, "p95_itl_ms": 15.584800000000001, "p99_itl_ms": 58.2, "concurrency": 62.848, "accept_length": null}
)sample";

// tests/data/samples/genai_perf_llama31_8b_c16.json
const char *const kGenaiPerf = R"sample({
    "request_throughput": {
        "unit": "requests/sec",
        "avg": 5.8214
    },
    "request_latency": {
        "unit": "ms",
        "avg": 2745.18,
        "p1": 2432.2295,
        "p5": 2506.3493,
        "p10": 2563.9981,
        "p25": 2654.5891,
        "p50": 2728.7089,
        "p75": 2811.0643,
        "p90": 2901.6553,
        "p95": 2967.5396,
        "p99": 3173.4281,
        "min": 2374.5807,
        "max": 3404.0232,
        "std": 140.0042
    },
    "time_to_first_token": {
        "unit": "ms",
        "avg": 212.47,
        "p1": 131.7314,
        "p5": 150.8537,
        "p10": 165.7266,
        "p25": 189.0983,
        "p50": 208.2206,
        "p75": 229.4676,
        "p90": 252.8393,
        "p95": 269.8369,
        "p99": 322.9544,
        "min": 116.8585,
        "max": 382.446,
        "std": 36.1199
    },
    "time_to_second_token": {
        "unit": "ms",
        "avg": 11.93,
        "p1": 9.6633,
        "p5": 10.2001,
        "p10": 10.6177,
        "p25": 11.2739,
        "p50": 11.8107,
        "p75": 12.4072,
        "p90": 13.0633,
        "p95": 13.5405,
        "p99": 15.0318,
        "min": 9.2457,
        "max": 16.702,
        "std": 1.0141
    },
    "inter_token_latency": {
        "unit": "ms",
        "avg": 9.932,
        "p1": 9.3659,
        "p5": 9.5,
        "p10": 9.6042,
        "p25": 9.7681,
        "p50": 9.9022,
        "p75": 10.0512,
        "p90": 10.2151,
        "p95": 10.3342,
        "p99": 10.7067,
        "min": 9.2616,
        "max": 11.1238,
        "std": 0.2533
    },
    "output_token_throughput": {
        "unit": "tokens/sec",
        "avg": 1489.63
    },
    "output_token_throughput_per_user": {
        "unit": "tokens/sec",
        "avg": 100.71,
        "p1": 94.9695,
        "p5": 96.3291,
        "p10": 97.3866,
        "p25": 99.0483,
        "p50": 100.4079,
        "p75": 101.9185,
        "p90": 103.5802,
        "p95": 104.7888,
        "p99": 108.5654,
        "min": 93.9121,
        "max": 112.7952,
        "std": 2.5681
    },
    "output_sequence_length": {
        "unit": "tokens",
        "avg": 256.0,
        "p1": 256.0,
        "p5": 256.0,
        "p10": 256.0,
        "p25": 256.0,
        "p50": 256.0,
        "p75": 256.0,
        "p90": 256.0,
        "p95": 256.0,
        "p99": 256.0,
        "min": 256.0,
        "max": 256.0,
        "std": 0.0
    },
    "input_sequence_length": {
        "unit": "tokens",
        "avg": 2048.0,
        "p1": 2048.0,
        "p5": 2048.0,
        "p10": 2048.0,
        "p25": 2048.0,
        "p50": 2048.0,
        "p75": 2048.0,
        "p90": 2048.0,
        "p95": 2048.0,
        "p99": 2048.0,
        "min": 2048.0,
        "max": 2048.0,
        "std": 0.0
    },
    "request_count": {
        "unit": "count",
        "avg": 320
    },
    "input_config": {
        "model_names": [
            "meta-llama/Llama-3.1-8B-Instruct"
        ],
        "analyze": {},
        "endpoint": {
            "model_selection_strategy": "round_robin",
            "backend": "tensorrtllm",
            "custom": "",
            "type": "chat",
            "service_kind": "openai",
            "streaming": true,
            "server_metrics_urls": [],
            "url": "localhost:8000"
        },
        "perf_analyzer": {
            "path": "perf_analyzer",
            "verbose": false,
            "stimulus": {
                "concurrency": 16
            },
            "stability_percentage": 999,
            "measurement": {
                "mode": "request_count",
                "num": 320
            }
        },
        "input": {
            "batch_size": 1,
            "extra": {
                "ignore_eos": true,
                "max_tokens": 256
            },
            "goodput": {},
            "header": [],
            "file": "",
            "num_dataset_entries": 100,
            "random_seed": 0,
            "synthetic_tokens": {
                "mean": 2048,
                "stddev": 0
            },
            "output_tokens": {
                "mean": 256,
                "deterministic": false,
                "stddev": 0
            }
        },
        "output": {
            "artifact_directory": "artifacts/meta-llama_Llama-3.1-8B-Instruct-openai-chat-concurrency16",
            "profile_export_file": "artifacts/meta-llama_Llama-3.1-8B-Instruct-openai-chat-concurrency16/profile_export.json",
            "generate_plots": false
        },
        "tokenizer": {
            "name": "meta-llama/Llama-3.1-8B-Instruct",
            "revision": "main",
            "trust_remote_code": false
        },
        "subcommand": "profile"
    }
}
)sample";

// tests/data/samples/megatron_llama3_8b_8gpu.log
const char *const kMegatron =
    R"sample(using world size: 8, data-parallel size: 4, context-parallel size: 1, hierarchical context-parallel sizes: None, tensor-model-parallel size: 2, encoder-tensor-model-parallel size: 0, pipeline-model-parallel size: 1, encoder-pipeline-model-parallel size: 0
Number of virtual stages per pipeline stage: None
using torch.bfloat16 for parameters ...
------------------------ arguments ------------------------
  bf16 ............................................ True
  ffn_hidden_size ................................. 14336
  global_batch_size ............................... 128
  group_query_attention ........................... True
  hidden_size ..................................... 4096
  log_interval .................................... 1
  log_throughput .................................. True
  lr .............................................. 0.0003
  lr_warmup_iters ................................. 2000
  micro_batch_size ................................ 1
  num_attention_heads ............................. 32
  num_layers ...................................... 32
  num_query_groups ................................ 8
  seq_length ...................................... 8192
  swiglu .......................................... True
  tensor_model_parallel_size ...................... 2
  train_iters ..................................... 2000
  use_distributed_optimizer ....................... True
-------------------- end of arguments ---------------------
> building Llama3Tokenizer tokenizer ...
> initializing torch distributed ...
> initialized tensor model parallel with size 2
> initialized pipeline model parallel with size 1
building GPT model ...
 > number of parameters on (tensor, pipeline) model parallel rank (0, 0): 4015263744
 > number of parameters on (tensor, pipeline) model parallel rank (1, 0): 4015263744
[after model, optimizer, and learning rate scheduler are built] datetime: 2026-05-14 09:58:12.418392 
[after dataloaders are built] datetime: 2026-05-14 09:58:39.870215 
done with setup ...
training ...
[before the start of training step] datetime: 2026-05-14 09:58:40.102774 
 [2026-05-14 09:59:07.534674] iteration        1/    2000 | consumed samples:          128 | elapsed time per iteration (ms): 27431.9 | throughput per GPU (TFLOP/s/GPU): 300.4 | learning rate: 1.500000E-07 | global batch size:   128 | lm loss: 1.140048E+01 | loss scale: 1.0 | grad norm: 15.668 | number of skipped iterations:   0 | number of nan iterations:   0 |
[Rank 0] (after 1 iterations) memory (MB) | allocated: 31248.6 | max allocated: 61873.2 | reserved: 66140.0 | max reserved: 66140.0
 [2026-05-14 09:59:27.409174] iteration        2/    2000 | consumed samples:          256 | elapsed time per iteration (ms): 19874.5 | throughput per GPU (TFLOP/s/GPU): 414.7 | learning rate: 3.000000E-07 | global batch size:   128 | lm loss: 1.075715E+01 | loss scale: 1.0 | grad norm: 11.100 | number of skipped iterations:   0 | number of nan iterations:   0 |
[Rank 0] (after 2 iterations) memory (MB) | allocated: 31248.6 | max allocated: 61873.2 | reserved: 66140.0 | max reserved: 66140.0
 [2026-05-14 09:59:46.593377] iteration        3/    2000 | consumed samples:          384 | elapsed time per iteration (ms): 19184.2 | throughput per GPU (TFLOP/s/GPU): 429.6 | learning rate: 4.500000E-07 | global batch size:   128 | lm loss: 1.018793E+01 | loss scale: 1.0 | grad norm: 9.004 | number of skipped iterations:   0 | number of nan iterations:   0 |
 [2026-05-14 10:00:05.778205] iteration        4/    2000 | consumed samples:          512 | elapsed time per iteration (ms): 19184.8 | throughput per GPU (TFLOP/s/GPU): 429.6 | learning rate: 6.000000E-07 | global batch size:   128 | lm loss: 9.609351E+00 | loss scale: 1.0 | grad norm: 7.988 | number of skipped iterations:   0 | number of nan iterations:   0 |
 [2026-05-14 10:00:24.898918] iteration        5/    2000 | consumed samples:          640 | elapsed time per iteration (ms): 19120.7 | throughput per GPU (TFLOP/s/GPU): 431.0 | learning rate: 7.500000E-07 | global batch size:   128 | lm loss: 9.102603E+00 | loss scale: 1.0 | grad norm: 6.959 | number of skipped iterations:   0 | number of nan iterations:   0 |
 [2026-05-14 10:00:44.129437] iteration        6/    2000 | consumed samples:          768 | elapsed time per iteration (ms): 19230.5 | throughput per GPU (TFLOP/s/GPU): 428.5 | learning rate: 9.000000E-07 | global batch size:   128 | lm loss: 8.908675E+00 | loss scale: 1.0 | grad norm: 6.340 | number of skipped iterations:   0 | number of nan iterations:   0 |
 [2026-05-14 10:01:03.386436] iteration        7/    2000 | consumed samples:          896 | elapsed time per iteration (ms): 19257.0 | throughput per GPU (TFLOP/s/GPU): 427.9 | learning rate: 1.050000E-06 | global batch size:   128 | lm loss: 8.695213E+00 | loss scale: 1.0 | grad norm: 6.055 | number of skipped iterations:   0 | number of nan iterations:   0 |
 [2026-05-14 10:01:22.587171] iteration        8/    2000 | consumed samples:         1024 | elapsed time per iteration (ms): 19200.7 | throughput per GPU (TFLOP/s/GPU): 429.2 | learning rate: 1.200000E-06 | global batch size:   128 | lm loss: 8.539873E+00 | loss scale: 1.0 | grad norm: 5.485 | number of skipped iterations:   0 | number of nan iterations:   0 |
 [2026-05-14 10:01:41.774527] iteration        9/    2000 | consumed samples:         1152 | elapsed time per iteration (ms): 19187.4 | throughput per GPU (TFLOP/s/GPU): 429.5 | learning rate: 1.350000E-06 | global batch size:   128 | lm loss: 8.391586E+00 | loss scale: 1.0 | grad norm: 5.224 | number of skipped iterations:   0 | number of nan iterations:   0 |
 [2026-05-14 10:02:00.917925] iteration       10/    2000 | consumed samples:         1280 | elapsed time per iteration (ms): 19143.4 | throughput per GPU (TFLOP/s/GPU): 430.5 | learning rate: 1.500000E-06 | global batch size:   128 | lm loss: 8.245420E+00 | loss scale: 1.0 | grad norm: 5.041 | number of skipped iterations:   0 | number of nan iterations:   0 |
 [2026-05-14 10:02:20.091799] iteration       11/    2000 | consumed samples:         1408 | elapsed time per iteration (ms): 19173.9 | throughput per GPU (TFLOP/s/GPU): 429.8 | learning rate: 1.650000E-06 | global batch size:   128 | lm loss: 8.040765E+00 | loss scale: 1.0 | grad norm: 4.829 | number of skipped iterations:   0 | number of nan iterations:   0 |
 [2026-05-14 10:02:39.296329] iteration       12/    2000 | consumed samples:         1536 | elapsed time per iteration (ms): 19204.5 | throughput per GPU (TFLOP/s/GPU): 429.1 | learning rate: 1.800000E-06 | global batch size:   128 | lm loss: 7.860781E+00 | loss scale: 1.0 | grad norm: 4.673 | number of skipped iterations:   0 | number of nan iterations:   0 |
 [2026-05-14 10:02:58.472781] iteration       13/    2000 | consumed samples:         1664 | elapsed time per iteration (ms): 19176.5 | throughput per GPU (TFLOP/s/GPU): 429.7 | learning rate: 1.950000E-06 | global batch size:   128 | lm loss: 7.696754E+00 | loss scale: 1.0 | grad norm: 4.598 | number of skipped iterations:   0 | number of nan iterations:   0 |
 [2026-05-14 10:03:17.731852] iteration       14/    2000 | consumed samples:         1792 | elapsed time per iteration (ms): 19259.1 | throughput per GPU (TFLOP/s/GPU): 427.9 | learning rate: 2.100000E-06 | global batch size:   128 | lm loss: 7.492258E+00 | loss scale: 1.0 | grad norm: 4.355 | number of skipped iterations:   0 | number of nan iterations:   0 |
 [2026-05-14 10:03:36.886504] iteration       15/    2000 | consumed samples:         1920 | elapsed time per iteration (ms): 19154.7 | throughput per GPU (TFLOP/s/GPU): 430.2 | learning rate: 2.250000E-06 | global batch size:   128 | lm loss: 7.331722E+00 | loss scale: 1.0 | grad norm: 4.089 | number of skipped iterations:   0 | number of nan iterations:   0 |
 [2026-05-14 10:03:56.003549] iteration       16/    2000 | consumed samples:         2048 | elapsed time per iteration (ms): 19117.0 | throughput per GPU (TFLOP/s/GPU): 431.1 | learning rate: 2.400000E-06 | global batch size:   128 | lm loss: 7.132549E+00 | loss scale: 1.0 | grad norm: 3.995 | number of skipped iterations:   0 | number of nan iterations:   0 |
 [2026-05-14 10:04:15.239737] iteration       17/    2000 | consumed samples:         2176 | elapsed time per iteration (ms): 19236.2 | throughput per GPU (TFLOP/s/GPU): 428.4 | learning rate: 2.550000E-06 | global batch size:   128 | lm loss: 6.960720E+00 | loss scale: 1.0 | grad norm: 4.047 | number of skipped iterations:   0 | number of nan iterations:   0 |
 [2026-05-14 10:04:34.476037] iteration       18/    2000 | consumed samples:         2304 | elapsed time per iteration (ms): 19236.3 | throughput per GPU (TFLOP/s/GPU): 428.4 | learning rate: 2.700000E-06 | global batch size:   128 | lm loss: 6.816681E+00 | loss scale: 1.0 | grad norm: 3.716 | number of skipped iterations:   0 | number of nan iterations:   0 |
 [2026-05-14 10:04:53.721999] iteration       19/    2000 | consumed samples:         2432 | elapsed time per iteration (ms): 19246.0 | throughput per GPU (TFLOP/s/GPU): 428.2 | learning rate: 2.850000E-06 | global batch size:   128 | lm loss: 6.638842E+00 | loss scale: 1.0 | grad norm: 3.850 | number of skipped iterations:   0 | number of nan iterations:   0 |
 [2026-05-14 10:05:12.889257] iteration       20/    2000 | consumed samples:         2560 | elapsed time per iteration (ms): 19167.3 | throughput per GPU (TFLOP/s/GPU): 430.0 | learning rate: 3.000000E-06 | global batch size:   128 | lm loss: 6.489583E+00 | loss scale: 1.0 | grad norm: 3.655 | number of skipped iterations:   0 | number of nan iterations:   0 |
)sample";

// tests/data/samples/torchtitan_llama3_8b_8gpu.log (its colour escapes written as \x1b)
const char *const kTorchtitan =
    "[rank0]:[titan] 2026-05-14 11:02:13,481 - root - INFO - Starting job: Llama 3 8B training\n"
    "[rank0]:[titan] 2026-05-14 11:02:13,481 - root - INFO - Building 1-D device mesh with "
    "['dp_shard'], [8]\n"
    "[rank0]:[titan] 2026-05-14 11:02:13,481 - root - INFO - [GC] Initial GC collection 0.00 "
    "seconds\n"
    "[rank0]:[titan] 2026-05-14 11:02:13,481 - root - INFO - CUDA capacity: NVIDIA H100 80GB HBM3 "
    "with 79.11GiB memory\n"
    "[rank0]:[titan] 2026-05-14 11:02:13,481 - root - INFO - Peak FLOPS used for computing MFU: "
    "9.890e+14\n"
    "[rank0]:[titan] 2026-05-14 11:02:13,481 - root - INFO - Model llama3 8B size: 8,030,261,248 "
    "total parameters\n"
    "[rank0]:[titan] 2026-05-14 11:02:13,481 - root - INFO - Training starts at step 1\n"
    "[rank0]:[titan] 2026-05-14 11:02:22,259 - root - INFO - \x1b[31mstep:  1  \x1b[32mloss: "
    "10.53853  \x1b[38;2;180;60;0mgrad_norm:  2.4000  \x1b[38;2;54;234;195mmemory: "
    "58.37GiB(73.78%)  \x1b[34mtps: 1,248  \x1b[36mtflops: 75.40  \x1b[35mmfu: 7.62%\x1b[39m\n"
    "[rank0]:[titan] 2026-05-14 11:02:35,559 - root - INFO - \x1b[31mstep: 10  \x1b[32mloss:  "
    "9.06313  \x1b[38;2;180;60;0mgrad_norm:  0.9641  \x1b[38;2;54;234;195mmemory: 58.37GiB(73.78%) "
    " \x1b[34mtps: 5,893  \x1b[36mtflops: 356.06  \x1b[35mmfu: 36.00%\x1b[39m\n"
    "[rank0]:[titan] 2026-05-14 11:02:48,859 - root - INFO - \x1b[31mstep: 20  \x1b[32mloss:  "
    "7.79429  \x1b[38;2;180;60;0mgrad_norm:  0.7696  \x1b[38;2;54;234;195mmemory: 58.37GiB(73.78%) "
    " \x1b[34mtps: 6,219  \x1b[36mtflops: 375.75  \x1b[35mmfu: 37.99%\x1b[39m\n"
    "[rank0]:[titan] 2026-05-14 11:03:02,159 - root - INFO - \x1b[31mstep: 30  \x1b[32mloss:  "
    "7.56047  \x1b[38;2;180;60;0mgrad_norm:  0.6834  \x1b[38;2;54;234;195mmemory: 58.37GiB(73.78%) "
    " \x1b[34mtps: 6,206  \x1b[36mtflops: 374.97  \x1b[35mmfu: 37.91%\x1b[39m\n"
    "[rank0]:[titan] 2026-05-14 11:03:15,459 - root - INFO - \x1b[31mstep: 40  \x1b[32mloss:  "
    "7.33365  \x1b[38;2;180;60;0mgrad_norm:  0.6320  \x1b[38;2;54;234;195mmemory: 58.37GiB(73.78%) "
    " \x1b[34mtps: 6,154  \x1b[36mtflops: 371.82  \x1b[35mmfu: 37.60%\x1b[39m\n"
    "[rank0]:[titan] 2026-05-14 11:03:28,759 - root - INFO - \x1b[31mstep: 50  \x1b[32mloss:  "
    "7.11364  \x1b[38;2;180;60;0mgrad_norm:  0.5970  \x1b[38;2;54;234;195mmemory: 58.37GiB(73.78%) "
    " \x1b[34mtps: 6,163  \x1b[36mtflops: 372.37  \x1b[35mmfu: 37.65%\x1b[39m\n"
    "[rank0]:[titan] 2026-05-14 11:03:28,759 - root - INFO - \x1b[33mvalidate step: 50  "
    "\x1b[32mloss:  7.2559  \x1b[38;2;54;234;195mmemory: 58.37GiB(73.78%)  \x1b[34mtps: "
    "18,911\x1b[39m\n"
    "[rank0]:[titan] 2026-05-14 11:03:42,059 - root - INFO - \x1b[31mstep: 60  \x1b[32mloss:  "
    "6.90023  \x1b[38;2;180;60;0mgrad_norm:  0.5711  \x1b[38;2;54;234;195mmemory: 58.37GiB(73.78%) "
    " \x1b[34mtps: 6,131  \x1b[36mtflops: 370.44  \x1b[35mmfu: 37.46%\x1b[39m\n"
    "[rank0]:[titan] 2026-05-14 11:03:55,359 - root - INFO - \x1b[31mstep: 70  \x1b[32mloss:  "
    "6.69323  \x1b[38;2;180;60;0mgrad_norm:  0.5510  \x1b[38;2;54;234;195mmemory: 58.37GiB(73.78%) "
    " \x1b[34mtps: 6,159  \x1b[36mtflops: 372.13  \x1b[35mmfu: 37.63%\x1b[39m\n"
    "[rank0]:[titan] 2026-05-14 11:04:08,659 - root - INFO - \x1b[31mstep: 80  \x1b[32mloss:  "
    "6.49243  \x1b[38;2;180;60;0mgrad_norm:  0.5348  \x1b[38;2;54;234;195mmemory: 58.37GiB(73.78%) "
    " \x1b[34mtps: 6,162  \x1b[36mtflops: 372.31  \x1b[35mmfu: 37.64%\x1b[39m\n"
    "[rank0]:[titan] 2026-05-14 11:04:21,959 - root - INFO - \x1b[31mstep: 90  \x1b[32mloss:  "
    "6.29766  \x1b[38;2;180;60;0mgrad_norm:  0.5214  \x1b[38;2;54;234;195mmemory: 58.37GiB(73.78%) "
    " \x1b[34mtps: 6,121  \x1b[36mtflops: 369.83  \x1b[35mmfu: 37.39%\x1b[39m\n"
    "[rank0]:[titan] 2026-05-14 11:04:35,259 - root - INFO - \x1b[31mstep: 100  \x1b[32mloss:  "
    "6.10873  \x1b[38;2;180;60;0mgrad_norm:  0.5100  \x1b[38;2;54;234;195mmemory: 58.37GiB(73.78%) "
    " \x1b[34mtps: 6,172  \x1b[36mtflops: 372.91  \x1b[35mmfu: 37.71%\x1b[39m\n"
    "[rank0]:[titan] 2026-05-14 11:04:35,259 - root - INFO - Sleeping 2 seconds for other ranks to "
    "complete\n"
    "[rank0]:[titan] 2026-05-14 11:04:35,259 - root - INFO - Training completed\n";

// tests/data/samples/components_h100.json
const char *const kComponents = R"sample({
 "name": "my-h100-components",
 "source": "Microbenchmarks run on one DGX H100 (tools/measure/), May 2026",
 "points": [
  {
   "name": "H100 cuBLASLt bf16 8192x8192x8192",
   "kind": "gemm",
   "hardware": "h100-sxm",
   "precision": "bf16",
   "m": 8192,
   "n": 8192,
   "k": 8192,
   "measured": 742900000000000.0,
   "fitted": true,
   "source": "gemm_h100_bf16_fp8.csv line 5"
  },
  {
   "name": "H100 FlashAttention fwd+bwd d128 seq 4096",
   "kind": "attention",
   "hardware": "h100-sxm",
   "precision": "bf16",
   "batch": 4,
   "heads": 32,
   "seq": 4096,
   "head_dim": 128,
   "causal": false,
   "measured": 463400000000000.0,
   "fitted": true
  },
  {
   "name": "DGX H100 all_reduce 8 GPUs 1 GiB",
   "kind": "collective",
   "cluster": {
    "base": "dgx-h100",
    "devices": 8
   },
   "op": "allreduce",
   "group": 8,
   "bytes": 1073741824,
   "measured": 475700000000.0,
   "fitted": true
  },
  {
   "name": "H100 STREAM triad",
   "kind": "hbm",
   "hardware": "h100-sxm",
   "measured": 2960000000000.0,
   "fitted": true
  }
 ]
}
)sample";

const Sample kSamples[] = {
    {"nccl_all_reduce_h100x8.txt", MeasurementFormat::nccl_tests, kNccl},
    {"gemm_h100_bf16_fp8.csv", MeasurementFormat::gemm_csv, kGemm},
    {"attention_h100_bf16.csv", MeasurementFormat::attention_csv, kAttention},
    {"elementwise_h100.csv", MeasurementFormat::elementwise_csv, kElementwise},
    {"layer_profile_llama3_8b_h100.csv", MeasurementFormat::layer_profile_csv, kLayerProfile},
    {"serving_runs_h100.csv", MeasurementFormat::serving_csv, kServingCsv},
    {"vllm_llama31_70b_tp8_c16.json", MeasurementFormat::vllm_json, kVllm},
    {"sglang_llama31_8b.jsonl", MeasurementFormat::sglang_jsonl, kSglang},
    {"genai_perf_llama31_8b_c16.json", MeasurementFormat::genai_perf_json, kGenaiPerf},
    {"megatron_llama3_8b_8gpu.log", MeasurementFormat::megatron_log, kMegatron},
    {"torchtitan_llama3_8b_8gpu.log", MeasurementFormat::torchtitan_log, kTorchtitan},
    {"components_h100.json", MeasurementFormat::components_json, kComponents},
};

Measurements read(const char *text, const std::string &name) {
  return io::read_measurements(text, name);
}

const ComponentPoint &point_named(const Measurements &m, const std::string &name) {
  for (const ComponentPoint &p : m.components)
    if (p.name == name)
      return p;
  FAIL("no point named " << name);
  return m.components.front();
}

} // namespace

TEST_CASE("Readers: every sample's format is detected and read", "[readers]") {
  for (const Sample &s : kSamples) {
    INFO(s.file);
    CHECK(io::detect_format(s.text, s.file) == s.format);
    const Measurements m = io::read_measurements(s.text, s.file);
    REQUIRE_FALSE(m.empty());
    CHECK(m.files == std::vector<std::string>{s.file});
    for (const ServingSample &r : m.serving)
      CHECK(r.file == s.file);
    for (const TrainingSample &r : m.training)
      CHECK(r.file == s.file);
    for (const LayerProfile &r : m.layers)
      CHECK(r.file == s.file);
    for (const ComponentPoint &p : m.components)
      CHECK(p.source.rfind(std::string(s.file) + ":", 0) == 0);
    // The format given explicitly reads the same rows.
    const Measurements again = io::read_measurements(s.text, s.file, s.format);
    CHECK(again.components.size() == m.components.size());
    CHECK(again.serving.size() == m.serving.size());
    CHECK(again.training.size() == m.training.size());
    CHECK(again.layers.size() == m.layers.size());
  }
  CHECK(std::string(io::name_of_format(MeasurementFormat::nccl_tests)) == "nccl-tests");
}

#ifndef __EMSCRIPTEN__
TEST_CASE("Readers: the embedded samples equal the files under tests/data/samples", "[readers]") {
  for (const Sample &s : kSamples) {
    INFO(s.file);
    std::ifstream f(std::string(RIDGELINE_SOURCE_DIR) + "/tests/data/samples/" + s.file,
                    std::ios::binary);
    REQUIRE(f.good());
    std::ostringstream text;
    text << f.rdbuf();
    CHECK(text.str() == s.text);
  }
}
#endif

TEST_CASE("Readers: nccl-tests output", "[readers]") {
  const Measurements m = read(kNccl, "nccl_all_reduce_h100x8.txt");
  // 31 sizes, 8 B to 8 GiB, out-of-place and in-place.
  REQUIRE(m.components.size() == 62);
  const ComponentPoint &gib = point_named(m, "all_reduce 8 ranks 1073741824 B out-of-place");
  CHECK(gib.kind == ComponentKind::collective);
  CHECK(gib.op == Collective::allreduce);
  CHECK(gib.group == 8); // eight '#  Rank' lines
  CHECK(gib.nodes == 1); // all on dgx-h100-01
  CHECK(gib.bytes == 1073741824.0);
  CHECK(gib.measured == Approx(475.71e9)); // busbw 475.71 GB/s
  CHECK(gib.source == "nccl_all_reduce_h100x8.txt:46");
  CHECK(gib.fitted);
  CHECK(point_named(m, "all_reduce 8 ranks 1073741824 B in-place").measured == Approx(475.70e9));
  // Below 1 GB/s the two printed decimals say little: the bandwidth follows from size and
  // time, 8 B / 13.85 us x 2 (8 - 1) / 8 = 1.0108e6 B/s.
  CHECK(point_named(m, "all_reduce 8 ranks 8 B out-of-place").measured ==
        Approx(8 / 13.85e-6 * 1.75));

  SECTION("several tests in one file, over two nodes, older layouts and launcher labels") {
    const char *text =
        R"(mpirun -np 16 -H node1:8,node2:8 ./build/all_gather_perf -b 1M -e 1G -f 1024 -g 1
# nThread 1 nGpus 1 minBytes 1048576 maxBytes 1073741824 step: 1024(factor) warmup iters: 5 iters: 20 agg iters: 1 validation: 1 graph: 0
#
# Using devices
#  Rank  0 Group  0 Pid   6899 on      node1 device  0 [0x18] NVIDIA H100 80GB HBM3
#  Rank  1 Group  0 Pid   6900 on      node1 device  1 [0x2a] NVIDIA H100 80GB HBM3
#  Rank  8 Group  0 Pid   6733 on      node2 device  0 [0x18] NVIDIA H100 80GB HBM3
#  Rank 15 Group  0 Pid   6740 on      node2 device  7 [0xdb] NVIDIA H100 80GB HBM3
#
#                                                              out-of-place                       in-place
#       size         count      type   redop    root     time   algbw   busbw #wrong     time   algbw   busbw #wrong
#        (B)    (elements)                               (us)  (GB/s)  (GB/s)            (us)  (GB/s)  (GB/s)
     1048576         16384     float    none      -1    61.87   16.95   15.89      0    58.40   17.95   16.83      0
  1073741824      16777216     float    none      -1  25467.3   42.16   39.53      0  25341.0   42.37   39.72      0
# Avg bus bandwidth    : 27.99
0: # nThread 1 nGpus 8 minBytes 1024 maxBytes 1024 step: 2(factor) warmup iters: 5 iters: 20 agg iters: 1 validation: 1 graph: 0
0: #       size         count      type   redop     time   algbw   busbw  error     time   algbw   busbw  error
0:         1024           256     float    none    24.31    0.04    0.04  0e+00    24.12    0.04    0.04  0e+00
)";
    const Measurements two = read(text, "alltoall_h100.txt");
    REQUIRE(two.components.size() == 6);
    const ComponentPoint &ag = two.components[2];
    CHECK(ag.name == "all_gather 16 ranks 2 nodes 1073741824 B out-of-place");
    CHECK(ag.op == Collective::allgather);
    CHECK(ag.group == 16); // rank 15 listed: the ranks in between were cut short
    CHECK(ag.nodes == 2);
    CHECK(ag.measured == Approx(39.53e9));
    // The second test names no binary: the file name says alltoall; nThread x nGpus ranks.
    const ComponentPoint &a2a = two.components[4];
    CHECK(a2a.op == Collective::alltoall);
    CHECK(a2a.group == 8);
    CHECK(a2a.source == "alltoall_h100.txt:18");
    CHECK(a2a.measured == Approx(1024 / 24.31e-6 * 7 / 8));
  }

  SECTION("errors name the line and column") {
    std::string t = kNccl;
    t.replace(t.find("475.71"), 6, "  abc ");
    REQUIRE_THROWS_WITH(
        read(t.c_str(), "n.txt"),
        "n.txt:46: column 'busbw' (out-of-place): expected a number of GB/s, got 'abc'");
    t = kNccl;
    const auto at = t.find("      0    13.59");
    t.replace(at, 7, "      3");
    REQUIRE_THROWS_WITH(read(t.c_str(), "n.txt"),
                        Contains("n.txt:19: column '#wrong' (out-of-place): 3 wrong elements"));
    t = kNccl;
    t.replace(t.find("# Collective test starting: all_reduce_perf"), 43,
              "# Collective test starting: broadcast_perf ");
    REQUIRE_THROWS_WITH(read(t.c_str(), "n.txt"),
                        Contains("n.txt:19: 'broadcast_perf' has no bus bandwidth"));
    const char *anonymous = "# nThread 1 nGpus 8 minBytes 8 maxBytes 8\n"
                            "#       size  count  type  redop  root  time  algbw  busbw  #wrong  "
                            "time  algbw  busbw  #wrong\n"
                            "           8      2 float    sum    -1 13.85   0.00   0.00       0 "
                            "13.59   0.00   0.00       0\n";
    REQUIRE_THROWS_WITH(
        io::read_measurements(anonymous, "results.txt", MeasurementFormat::nccl_tests),
        Contains("results.txt:3: which collective is this?"));
    REQUIRE_THROWS_WITH(
        io::read_measurements("# nThread 1 nGpus 8\n", "a.txt", MeasurementFormat::nccl_tests),
        Contains("a.txt: no nccl-tests result rows"));
  }
}

TEST_CASE("Readers: GEMM sweep CSV", "[readers]") {
  const Measurements m = read(kGemm, "gemm_h100_bf16_fp8.csv");
  REQUIRE(m.components.size() == 13);
  const ComponentPoint &p = m.components[2];
  CHECK(p.name == "gemm bf16 4096x4096x4096");
  CHECK(p.kind == ComponentKind::gemm);
  CHECK(p.precision == Dtype::bf16);
  CHECK((p.m == 4096 && p.n == 4096 && p.k == 4096));
  // 2 x 4096^3 = 137438953472 FLOP in 0.000199708 s: 6.88200e14 FLOP/s.
  CHECK(p.measured == Approx(137438953472.0 / 0.000199708));
  CHECK(p.measured == Approx(688.2e12).epsilon(1e-5)); // the tflops column, for the record
  CHECK(p.source == "gemm_h100_bf16_fp8.csv:4");
  const ComponentPoint &fp8 = m.components[9];
  CHECK(fp8.name == "gemm fp8 4096x4096x4096");
  CHECK(fp8.precision == Dtype::fp8);
  CHECK(m.components[8].m == 1); // a decode GEMM, 1 x 28672 x 4096

  SECTION("any column order, extra columns, quotes, '#' lines, CRLF and a BOM") {
    const Measurements q = read("\xEF\xBB\xBF# measured on gpu 0\r\nlayout,dtype,seconds,k,n,m\r\n"
                                "\"TN\",FP16,0.001,1024,2048,512\r\n",
                                "g.csv");
    REQUIRE(q.components.size() == 1);
    CHECK(q.components[0].name == "gemm fp16 512x2048x1024");
    CHECK(q.components[0].precision == Dtype::fp16);
    CHECK(q.components[0].measured == Approx(2.0 * 512 * 2048 * 1024 / 0.001));
    CHECK(q.components[0].source == "g.csv:3");
  }

  SECTION("errors") {
    REQUIRE_THROWS_WITH(read("m,n,k,dtype,seconds\n1,2,3,bf16,1e-6\n4,5,6,bf16,abc\n", "g.csv"),
                        "g.csv:3: column 'seconds': expected a positive number, got 'abc'");
    REQUIRE_THROWS_WITH(read("m,n,k,dtype,seconds\n1,2,3,bf16,-1\n", "g.csv"),
                        "g.csv:2: column 'seconds': expected a positive number, got '-1'");
    REQUIRE_THROWS_WITH(
        io::read_measurements("m,n,k,seconds\n1,2,3,1\n", "g.csv", MeasurementFormat::gemm_csv),
        "g.csv:1: column 'dtype' is missing (the header has: m, n, k, seconds)");
    REQUIRE_THROWS_WITH(read("m,n,k,dtype,seconds\n1,2,3,fp4,1\n", "g.csv"),
                        "g.csv:2: column 'dtype': 'fp4' is not one of bf16, fp16, fp32, fp8, int8");
    REQUIRE_THROWS_WITH(read("m,n,k,dtype,seconds\n1.5,2,3,bf16,1\n", "g.csv"),
                        "g.csv:2: column 'm': expected a positive integer, got '1.5'");
    REQUIRE_THROWS_WITH(read("m,n,k,dtype,seconds\n1,2,3,bf16\n", "g.csv"),
                        "g.csv:2: 4 cells; the header (line 1) has 5");
    REQUIRE_THROWS_WITH(read("m,n,k,dtype,seconds\n", "g.csv"),
                        "g.csv: has a header (line 1) but no rows");
    REQUIRE_THROWS_WITH(
        read("m,n,k,dtype,seconds\n1073741824,1073741824,1073741824,bf16,1e-300\n", "g.csv"),
        Contains("g.csv:2: column 'seconds': gives"));
  }
}

TEST_CASE("Readers: attention and element-wise sweeps", "[readers]") {
  const Measurements a = read(kAttention, "attention_h100_bf16.csv");
  REQUIRE(a.components.size() == 10);
  const ComponentPoint &p = a.components[3];
  CHECK(p.name == "attention bf16 b4 h32 s4096 d128");
  CHECK(p.kind == ComponentKind::attention);
  CHECK((p.batch == 4 && p.heads == 32 && p.seq == 4096 && p.head_dim == 128 && !p.causal));
  // FlashAttention's count: 3.5 x 4 x 4 x 4096^2 x 32 x 128 = 3.84829e12 FLOP, forward +
  // backward in 0.00192222 + 0.00629011 s: 4.68599e14 FLOP/s.
  CHECK(p.measured == Approx(3848290697216.0 / (0.00192222 + 0.00629011)));
  CHECK(a.components[6].causal);
  CHECK(a.components[6].name == "attention bf16 b8 h32 s2048 d128 causal");
  REQUIRE_THROWS_WITH(
      read("batch,heads,seq,head_dim,causal,dtype,fwd_seconds,bwd_seconds\n1,2,3,4,yes,bf16,1,1\n",
           "a.csv"),
      "a.csv:2: column 'causal': expected true, false, 1 or 0, got 'yes'");

  const Measurements e = read(kElementwise, "elementwise_h100.csv");
  REQUIRE(e.components.size() == 8);
  CHECK(e.components[0].name == "copy");
  CHECK(e.components[0].kind == ComponentKind::hbm);
  // 2 GiB read + written in 0.000740967 s: 2.89822e12 B/s.
  CHECK(e.components[0].measured == Approx(2147483648.0 / 0.000740967));
  REQUIRE_THROWS_WITH(read("kernel,bytes,seconds\ncopy,1e9,\n", "e.csv"),
                      "e.csv:2: column 'seconds': expected a positive number, got ''");
}

TEST_CASE("Readers: a layer profile (tools/measure/layer_profile.py)", "[readers]") {
  const Measurements m = read(kLayerProfile, "layer_profile.csv");
  REQUIRE(m.layers.size() == 1);
  const LayerProfile &p = m.layers[0];
  CHECK(p.hidden == 4096);
  CHECK(p.heads == 32);
  CHECK(p.kv_heads == 8);
  CHECK(p.ffn == 14336);
  CHECK(p.seq == 4096);
  CHECK(p.micro_batch == 1);
  CHECK(p.dtype == Dtype::bf16);
  REQUIRE(p.seconds.size() == 10); // nine kernel classes and the gap
  CHECK(p.seconds[0] == std::pair<std::string, double>{"gemm", 0.0076});
  CHECK(p.seconds[9].first == "gap");
  CHECK(p.kernels == 100); // 12 + 5 + 30 + 24 + 8 + 6 + 4 + 10 + 1
  // the wall time: 7.6 + 1.52 + 0.61 + 0.54 + 0.48 + 0.3 + 0.05 + 0.2 + 0.02 + 0.35 ms
  CHECK(p.total() == Approx(0.01167));
  const std::string head = "kernel_class,calls,seconds,hidden,heads,kv_heads,ffn,seq,micro_batch,"
                           "dtype\n";
  const std::string shape = ",4096,32,8,14336,4096,1,bf16\n";
  CHECK(test::error_of([&] { read((head + "tensor,1,0.1" + shape).c_str(), "l.csv"); }) ==
        "l.csv:2: column 'kernel_class': 'tensor' is not a class layer_profile.py writes (gemm, "
        "attention, norm, rotary, activation, elementwise, reduce/softmax, memcpy, other, gap)");
  CHECK(test::error_of([&] {
          read((head + "gemm,1,0.1" + shape + "gemm,1,0.1" + shape).c_str(), "l.csv");
        }) == "l.csv:3: column 'kernel_class': 'gemm' appears twice: one file is one layer");
  CHECK(test::error_of([&] {
          read((head + "gemm,1,0.1" + shape + "gap,0,0.1,4096,32,8,14336,8192,1,bf16\n").c_str(),
               "l.csv");
        }) == "l.csv:3: column 'seq': differs from the first row's 4096: one file is one layer");
  CHECK(test::error_of([&] { read((head + "gemm,-1,0.1" + shape).c_str(), "l.csv"); }) ==
        "l.csv:2: column 'calls': expected a number >= 0, got '-1'");
  CHECK(test::error_of([&] { read((head + "gemm,1,0" + shape).c_str(), "l.csv"); }) ==
        "l.csv: no class has a time: nothing was measured");
  CHECK(test::error_of([&] {
          read((head + "gemm,1,0.1,4096,32,5,14336,4096,1,bf16\n").c_str(), "l.csv");
        }) == "l.csv: hidden 4096, heads 32, kv_heads 5: hidden must be a multiple of heads, "
              "heads of kv_heads");
}

TEST_CASE("Readers: serving runs CSV", "[readers]") {
  const Measurements m = read(kServingCsv, "serving_runs_h100.csv");
  REQUIRE(m.serving.size() == 6);
  const ServingSample &s = m.serving[0];
  CHECK(s.name == "vllm tp2 1024/1024 c=4");
  CHECK(s.model == "meta-llama/Llama-3.1-70B");
  CHECK(s.engine == "vllm");
  CHECK(s.tp == 2);
  CHECK(s.concurrency == 4);
  CHECK(s.input_len == 1024);
  CHECK(s.output_len == 1024);
  CHECK(s.ttft.mean == Approx(0.12131));  // 121.31 ms
  CHECK(s.tpot.mean == Approx(0.017407)); // 17.407 ms
  CHECK(m.serving[2].version == "1.0.0rc3");
  CHECK(m.serving[2].name == "trtllm 1.0.0rc3 tp1 1024/128 c=128");

  const Measurements r =
      read("engine,isl,osl,request_rate,ttft_ms,tpot_ms,e2e_ms,output_tokens_per_s\n"
           "sglang,2048,256,4.5,180,12.5,3360,1150\n",
           "r.csv");
  REQUIRE(r.serving.size() == 1);
  CHECK(r.serving[0].request_rate == 4.5);
  CHECK(r.serving[0].concurrency == 0);
  CHECK(r.serving[0].e2e.mean == Approx(3.36));
  CHECK(r.serving[0].output_tokens_per_s == 1150);
  CHECK(r.serving[0].name == "sglang 2048/256 rate=4.5");
  REQUIRE_THROWS_WITH(read("isl,osl,request_rate,ttft_ms,tpot_ms\n1,1,inf,1,1\n", "r.csv"),
                      Contains("r.csv:2: column 'request_rate': 'inf' with no concurrency"));
  REQUIRE_THROWS_WITH(io::read_measurements("isl,osl,ttft_ms,tpot_ms\n1,1,1,1\n", "r.csv",
                                            MeasurementFormat::serving_csv),
                      Contains("r.csv:1: column 'concurrency' is missing"));
  REQUIRE_THROWS_WITH(read("isl,osl,concurrency,ttft_ms,tpot_ms\n1024,128,16,12 ms,1\n", "r.csv"),
                      "r.csv:2: column 'ttft_ms': expected a positive number, got '12 ms'");
}

TEST_CASE("Readers: vLLM bench serve results", "[readers]") {
  const Measurements m = read(kVllm, "vllm_llama31_70b_tp8_c16.json");
  REQUIRE(m.serving.size() == 1);
  const ServingSample &s = m.serving[0];
  CHECK(s.name == "vllm c=16");
  CHECK(s.model == "meta-llama/Llama-3.1-70B-Instruct");
  CHECK(s.engine == "vllm");
  CHECK(s.tp == 8); // --metadata tensor_parallel_size=8
  CHECK(s.concurrency == 16);
  CHECK(s.request_rate == 0); // "inf": the concurrency limit sets the load
  CHECK(s.requests == 160);
  CHECK(s.input_len == 1024); // 163840 tokens / 160 requests
  CHECK(s.output_len == 256); // 40960 / 160
  CHECK(s.ttft.mean == Approx(0.18741));
  CHECK(s.ttft.p50 == Approx(0.1623));
  CHECK(s.ttft.p99 == Approx(0.40277));
  CHECK(s.tpot.mean == Approx(0.01492));
  CHECK(s.itl.p99 == Approx(0.04308));
  CHECK(s.output_tokens_per_s == Approx(1006.1409972979611));

  const std::string base =
      R"({"backend": "vllm", "model_id": "m", "num_prompts": 100, "completed": 100,
 "total_input_tokens": 51200, "total_output_tokens": 12800, "mean_ttft_ms": 250.0)";
  SECTION("all requests at once, an open loop, appended runs") {
    const Measurements burst =
        read((base + R"(, "max_concurrency": null, "request_rate": "inf"})").c_str(), "b.json");
    CHECK(burst.serving[0].concurrency == 100);
    CHECK(burst.serving[0].name == "vllm c=100");
    const Measurements open =
        read((base + R"(, "max_concurrency": null, "request_rate": 4.0})").c_str(), "o.json");
    CHECK(open.serving[0].request_rate == 4);
    CHECK(open.serving[0].concurrency == 0);
    CHECK(open.serving[0].name == "vllm rate=4");
    const std::string two =
        base + R"(, "max_concurrency": 8})" + "\n" + base + R"(, "max_concurrency": 8})" + "\n";
    const Measurements appended = read(two.c_str(), "two.json");
    REQUIRE(appended.serving.size() == 2);
    CHECK(appended.serving[1].name == "vllm c=8 (line 3)"); // two runs, one name
  }
  SECTION("errors name the line of the field") {
    const std::string bad =
        "{\n \"model_id\": \"m\",\n \"completed\": 10,\n \"total_input_tokens\": 10,\n"
        " \"total_output_tokens\": 10,\n \"mean_ttft_ms\": \"abc\"\n}\n";
    REQUIRE_THROWS_WITH(read(bad.c_str(), "v.json"),
                        "v.json:6: field 'mean_ttft_ms': expected a number, got a string");
    REQUIRE_THROWS_WITH(read(R"({"model_id": "m", "completed": 0, "total_input_tokens": 1,
 "total_output_tokens": 1, "mean_ttft_ms": 1})",
                             "v.json"),
                        "v.json:1: field 'completed': is 0: the run completed no request");
    REQUIRE_THROWS_WITH(
        io::read_measurements(R"({"model_id": "m", "completed": 5, "mean_ttft_ms": 1})", "v.json",
                              MeasurementFormat::vllm_json),
        "v.json:1: field 'total_input_tokens': is required");
  }
}

TEST_CASE("Readers: SGLang bench_serving JSONL", "[readers]") {
  const Measurements m = read(kSglang, "sglang_llama31_8b.jsonl");
  REQUIRE(m.serving.size() == 3);
  const ServingSample &s = m.serving[1];
  CHECK(s.name == "sglang c=32");
  CHECK(s.engine == "sglang");
  CHECK(s.concurrency == 32);
  CHECK(s.request_rate == 0); // Python's Infinity, read as "not given"
  CHECK(s.input_len == 2048);
  CHECK(s.output_len == 256);
  CHECK(s.ttft.mean == Approx(0.1185));
  CHECK(s.tpot.mean == Approx(0.00961));
  CHECK(s.e2e.mean == Approx(2.570));
  CHECK(s.requests == 320);
  std::string t = kSglang;
  t.insert(t.find('\n') + 2, "oops ");
  REQUIRE_THROWS_WITH(read(t.c_str(), "s.jsonl"),
                      Contains("s.jsonl:2: malformed JSON at column 2"));
}

TEST_CASE("Readers: genai-perf and AIPerf profile exports", "[readers]") {
  const Measurements m = read(kGenaiPerf, "genai_perf_llama31_8b_c16.json");
  REQUIRE(m.serving.size() == 1);
  const ServingSample &s = m.serving[0];
  CHECK(s.name == "genai-perf c=16");
  CHECK(s.concurrency == 16); // input_config.perf_analyzer.stimulus
  CHECK(s.model == "meta-llama/Llama-3.1-8B-Instruct");
  CHECK(s.engine == "trtllm"); // endpoint.backend "tensorrtllm"
  CHECK(s.ttft.mean == Approx(0.21247));
  CHECK(s.ttft.p90 == Approx(0.2528393));
  CHECK(s.tpot.mean == Approx(0.009932)); // inter_token_latency: TPOT in genai-perf's terms
  CHECK(s.e2e.mean == Approx(2.74518));
  CHECK(s.input_len == 2048);
  CHECK(s.output_len == 256);
  CHECK(s.requests == 320);
  CHECK(s.requests_per_s == Approx(5.8214));

  const char *aiperf = R"({
  "schema_version": "1.4",
  "aiperf_version": "0.12.0",
  "input_config": {"endpoint": {"model_names": ["Qwen/Qwen3-32B"]}, "loadgen": {"concurrency": 32}},
  "time_to_first_token": {"unit": "ms", "avg": 412.5, "p50": 398.0, "p99": 911.2},
  "inter_token_latency": {"unit": "ms", "avg": 21.4},
  "input_sequence_length": {"unit": "tokens", "avg": 1024.0},
  "output_sequence_length": {"unit": "tokens", "avg": 512.0}
})";
  const Measurements a = read(aiperf, "profile_export_aiperf.json");
  REQUIRE(a.serving.size() == 1);
  CHECK(a.serving[0].name == "aiperf c=32");
  CHECK(a.serving[0].model == "Qwen/Qwen3-32B");
  CHECK(a.serving[0].tpot.mean == Approx(0.0214));

  std::string bad = kGenaiPerf;
  bad.replace(bad.find("\"avg\": 212.47"), 13, "\"avg\": \"fast\"");
  REQUIRE_THROWS_WITH(
      read(bad.c_str(), "g.json"),
      "g.json:24: field 'time_to_first_token.avg': expected a number, got a string");
}

TEST_CASE("Readers: Megatron-LM and torchtitan training logs", "[readers]") {
  const Measurements m = read(kMegatron, "megatron_llama3_8b_8gpu.log");
  REQUIRE(m.training.size() == 20);
  const TrainingSample &first = m.training[0];
  CHECK(first.name == "iteration 1");
  CHECK(first.iteration == 1);
  CHECK(first.step_s == Approx(27.4319)); // 27431.9 ms
  CHECK(first.tflops_per_gpu == Approx(300.4e12));
  CHECK(first.global_batch == 128);
  CHECK(m.training[19].name == "iteration 20");
  REQUIRE_THROWS_WITH(
      read(" iteration        1/     100 | elapsed time per iteration (ms): abc |\n", "m.log"),
      "m.log:1: field 'elapsed time per iteration (ms)': expected a number, got 'abc'");
  REQUIRE_THROWS_WITH(
      io::read_measurements("training ...\n", "m.log", MeasurementFormat::megatron_log),
      Contains("m.log: no Megatron-LM iteration line"));

  const Measurements t = read(kTorchtitan, "torchtitan_llama3_8b_8gpu.log");
  REQUIRE(t.training.size() == 11); // the "validate step:" line is not a training step
  const TrainingSample &s = t.training[2];
  CHECK(s.name == "step 20");
  CHECK(s.tokens_per_s == 6219); // "tps: 6,219"
  CHECK(s.tflops_per_gpu == Approx(375.75e12));
  CHECK(s.mfu == Approx(0.3799));
  const Measurements plain = read("[titan] 2026-05-14 11:02:22,259 - root - INFO - step: 7  loss:  "
                                  "9.1  memory: 58.37GiB(73.78%)  "
                                  "tps: 12,345  tflops: 1,234.56  mfu: 124.83%\n",
                                  "t.log");
  REQUIRE(plain.training.size() == 1);
  CHECK(plain.training[0].tokens_per_s == 12345);
  CHECK(plain.training[0].tflops_per_gpu == Approx(1234.56e12));
  REQUIRE_THROWS_WITH(read("step: 3  loss: 1.0  tps: many  mfu: 1%\n", "t.log"),
                      "t.log:1: field 'tps': expected a number, got 'many'");
  REQUIRE_THROWS_WITH(io::read_measurements("hello\n", "t.log", MeasurementFormat::torchtitan_log),
                      Contains("t.log: no torchtitan metrics line"));
}

TEST_CASE("Readers: components.json", "[readers]") {
  const Measurements m = read(kComponents, "components_h100.json");
  REQUIRE(m.components.size() == 4);
  CHECK(m.components[0].name == "H100 cuBLASLt bf16 8192x8192x8192");
  CHECK(m.components[0].source == "components_h100.json:5 (gemm_h100_bf16_fp8.csv line 5)");
  CHECK(m.components[2].group == 8);
  std::string bad = kComponents;
  bad.replace(bad.find("\"kind\": \"hbm\""), 13, "\"kind\": \"ram\"");
  REQUIRE_THROWS_WITH(read(bad.c_str(), "c.json"),
                      Contains("c.json:45: points[3].kind: \"ram\" is not one of gemm"));
}

TEST_CASE("Readers: what no reader takes", "[readers]") {
  const std::string big(io::kMaxMeasurementBytes + 1, 'a');
  REQUIRE_THROWS_WITH(io::read_measurements(big, "big.txt"),
                      "big.txt: is 67108865 bytes; the limit is 64 MiB");
  REQUIRE_THROWS_WITH(io::read_measurements(big, "big.txt", MeasurementFormat::gemm_csv),
                      "big.txt: is 67108865 bytes; the limit is 64 MiB");
  REQUIRE_THROWS_WITH(io::detect_format(big, "big.txt"),
                      "big.txt: is 67108865 bytes; the limit is 64 MiB");
  REQUIRE_THROWS_WITH(read(R"({"foo": 1, "bar": [1, 2]})", "x.json"),
                      Contains("x.json: a JSON object with none of the keys ridgeline reads"));
  REQUIRE_THROWS_WITH(read(R"({"foo": 1, "bar": [1, 2]})", "x.json"),
                      Contains("its keys: foo, bar"));
  REQUIRE_THROWS_WITH(read("[1, 2]", "x.json"), Contains("x.json: a JSON array"));
  REQUIRE_THROWS_WITH(read("hello, world\nfoo\n", "x.txt"),
                      Contains("x.txt: not a measurement file ridgeline reads"));
  REQUIRE_THROWS_WITH(read("", "x.txt"), "x.txt: is empty");
  const std::string long_line = "kernel,bytes,seconds\ncopy,1," + std::string(1 << 20, '1') + "\n";
  REQUIRE_THROWS_WITH(read(long_line.c_str(), "e.csv"),
                      "e.csv:2: the line is 1048583 bytes; the limit is 1 MiB");
  std::string rows = "kernel,bytes,seconds\n";
  for (std::size_t i = 0; i <= io::kMaxMeasurementRows; ++i)
    rows += "k,1000000000,1\n";
  REQUIRE_THROWS_WITH(read(rows.c_str(), "e.csv"),
                      "e.csv:100002: more than 100000 rows; the limit is 100000 a file");
}

TEST_CASE("Readers: AIConfigurator's per-operation kernel tables", "[readers]") {
  // docs/data/aic/: the three headers (an engine's all-reduce, dense GEMMs, FP8 quantise
  // kernels) are one format; a GEMM sweep of tools/measure stays a GEMM sweep
  const std::string ar = "engine,version,kernel,num_gpus,message_bytes,latency_s\n"
                         "vllm,0.14.0,vLLM_custom_graph,8,65536,6.3e-06\n";
  const std::string gemm = "gpu,engine,version,dtype,m,n,k,latency_s\n"
                           "b200,vllm,0.19.0,fp4,16,8192,8192,1.2e-05\n";
  const std::string quant = "gpu,engine,version,op,m,k,latency_s\n"
                            "h100-sxm,trtllm,1.3.0rc20,amax,4096,8192,3.1e-05\n";
  for (const std::string *t : {&ar, &gemm, &quant})
    CHECK(io::detect_format(*t, "aic.csv") == io::MeasurementFormat::kernels_csv);
  CHECK(io::detect_format("m,n,k,dtype,seconds\n1,2,3,bf16,1e-3\n", "g.csv") ==
        io::MeasurementFormat::gemm_csv);
  const Measurements a = io::read_measurements(ar, "ar.csv");
  REQUIRE(a.kernels.size() == 1);
  CHECK(a.kernels[0].kind == KernelTiming::Kind::allreduce);
  CHECK(a.kernels[0].m == 65536); // message bytes
  CHECK(a.kernels[0].n == 8);     // GPUs
  const Measurements g = io::read_measurements(gemm, "gemm.csv");
  REQUIRE(g.kernels.size() == 1);
  CHECK(g.kernels[0].dtype == Dtype::nvfp4); // fp4: NVFP4
  CHECK(g.kernels[0].gpu == "b200");
  const Measurements q = io::read_measurements(quant, "q.csv");
  REQUIRE(q.kernels.size() == 1);
  CHECK(q.kernels[0].kind == KernelTiming::Kind::amax);
  CHECK(q.kernels[0].seconds == 3.1e-05);
  // a row that is none of them names its column
  CHECK(test::error_of([] {
          io::read_measurements("gpu,engine,version,op,m,k,latency_s\n"
                                "h100-sxm,trtllm,1,scale,1,1,1e-6\n",
                                "q.csv");
        }) == "q.csv:2: column 'op': 'scale' is not one of cast, amax");
}
