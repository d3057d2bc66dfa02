// ridgeline calibrate: measurements as rows, whatever file they came from. A reader
// (core/io/readers) turns an nccl-tests log, a GEMM / attention / element-wise sweep, a
// serving benchmark's result or a training log into these rows; the fit (core/calibrate/fit)
// takes rows only, so the shipped presets and a user's `ridgeline calibrate` run one path.
#pragma once

#include "core/calibrate/components.hpp"
#include "core/config.hpp"

#include <optional>
#include <string>
#include <vector>

namespace rl {

// Mean and percentiles of one latency as a benchmark client saw it, seconds (0: not given).
struct LatencyStats {
  double mean = 0, p50 = 0, p90 = 0, p99 = 0;
};

// One serving benchmark run (vLLM `bench serve`, SGLang `bench_serving`, genai-perf/AIPerf,
// or a CSV of such runs): the load it was driven with and what the client measured.
struct ServingSample {
  std::string name;            // a label: file and line, or the run's own
  std::string file;            // the file it was read from (Measurements::append sets it)
  std::string engine, version; // as the file says ("" when it does not)
  std::string model;           // the model the file names ("" when it does not)
  i64 tp = 0;                  // tensor-parallel size when the file gives it (0: not given)
  i64 concurrency = 0;         // closed loop: clients (0: open loop at request_rate)
  double request_rate = 0;     // open loop, requests/s (0: closed loop or "inf")
  double input_len = 0;        // mean prompt tokens of the completed requests
  double output_len = 0;       // mean output tokens of the completed requests
  i64 requests = 0;            // completed requests (0: not given)
  // The tool's statistics count every request, each client's first among them (the opening
  // burst: vLLM's `bench serve` and SGLang's bench_serving have no warm-up cut).
  bool counts_warmup = false;
  LatencyStats ttft, tpot, itl, e2e;
  double output_tokens_per_s = 0; // output throughput over the run (0: not given)
  double requests_per_s = 0;      // request throughput (0: not given)
  // What the run set beyond its load, where the file gives it (0 or empty: the base's), as
  // InferenceMAX's launch scripts set them (../calibration CSV columns of the same names).
  std::string hardware; // the file's name for the chip (b200_sxm)
  i64 pp = 0, attention_dp = 0, moe_tp = 0, ep = 0;
  std::optional<Dtype> precision, kv_dtype; // weights and GEMMs; the KV cache
  i64 requests_per_client = 0;              // requests each client sent (num_prompts / C)
  i64 max_tokens = 0;                       // the engine's token budget an iteration
  i64 draft_tokens = 0;                     // speculative decoding over the model's MTP layer
  // The engine's memory argument and admission options (ServeSpec's fields of the same names;
  // 0: the base's).
  double memory_fraction = 0;
  i64 recv_interval = 0, batch_wait_iters = 0, adp_balance_iters = 0;
  i64 max_batch = 0; // sequences run at once (SGLang --max-running-requests)
  double batch_wait_tokens_ratio = 0;
  // Lengths drawn uniformly on [length_low, 1] x isl / osl (`--random-range-ratio`); the run
  // is simulated at their mean, which input_len and output_len then hold.
  double length_low = 1;
};

// One iteration line of a training log (Megatron-LM, torchtitan). Zero: the line does not
// give it.
struct TrainingSample {
  std::string name; // file and line
  std::string file; // the file it was read from (Measurements::append sets it)
  i64 iteration = 0;
  double step_s = 0;         // Megatron: elapsed time per iteration
  double tflops_per_gpu = 0; // Megatron: throughput per GPU; torchtitan: tflops (FLOP/s here)
  double mfu = 0;            // torchtitan: mfu as a fraction
  double tokens_per_s = 0;   // torchtitan: tps (tokens per second per GPU)
  i64 global_batch = 0;      // Megatron: global batch size when logged
};

// One decoder layer's forward + backward under torch.profiler (tools/measure/layer_profile.py):
// the layer's shape and the GPU time of its kernels by class. The classes the script writes
// (gemm, attention, norm, rotary, activation, elementwise, reduce/softmax, memcpy, other) and
// `gap`, the wall time no kernel covered; their sum is the measured wall time.
struct LayerProfile {
  std::string file; // the file it was read from (Measurements::append sets it)
  i64 hidden = 0, heads = 0, kv_heads = 0, ffn = 0, seq = 0, micro_batch = 0;
  Dtype dtype = Dtype::bf16;
  std::vector<std::pair<std::string, double>> seconds; // by class, in the file's order
  i64 kernels = 0;                                     // kernel calls, all classes
  double total() const {
    double s = 0;
    for (const auto &c : seconds)
      s += c.second;
    return s;
  }
};

// Everything read from one or more files. Component points carry no hardware or cluster
// yet: the calibration fills them from its base configuration (`nodes` says how a
// collective's ranks were spread).
// One kernel timing of an engine from a per-operation database (AIConfigurator's
// systems/data tables, as docs/data/aic/ holds them): its all-reduce, a dense GEMM, or an FP8
// recipe's cast or amax kernel. The engine's and the chip's fits (calibrate/fit) read them.
struct KernelTiming {
  enum class Kind { allreduce, gemm, cast, amax };
  Kind kind = Kind::gemm;
  std::string name; // file:line
  std::string gpu;  // the chip's preset name ("h100-sxm"; "" for the all-reduce table)
  std::string engine, version;
  Dtype dtype = Dtype::bf16;  // gemm
  double m = 0, n = 0, k = 0; // gemm: m n k; cast / amax: m k; all-reduce: m bytes, n GPUs
  double seconds = 0;
};

// A GEMM of a table's compute-bound shapes (M, N and K each 4096 or more): its rate, not its
// weight streaming, is what it measures.
bool is_large_gemm(const KernelTiming &t);

struct Measurements {
  std::vector<ComponentPoint> components;
  std::vector<ServingSample> serving;
  std::vector<TrainingSample> training;
  std::vector<LayerProfile> layers;
  std::vector<KernelTiming> kernels;
  std::vector<std::string> files; // the names read, in order
  bool empty() const {
    return components.empty() && serving.empty() && training.empty() && layers.empty() &&
           kernels.empty();
  }
  // Rows of every kind.
  std::size_t rows() const {
    return components.size() + serving.size() + training.size() + layers.size() + kernels.size();
  }
  // Adds o's rows; when o is one file, its serving and training rows get o.files[0] as `file`.
  void append(const Measurements &o);
};

} // namespace rl
