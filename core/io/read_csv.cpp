// ridgeline io: the CSV readers. A header row names the columns (any order, extra columns
// ignored); '#' lines and blank lines are skipped; a cell may be quoted ("a, b").
#include "core/calibrate/components.hpp"
#include "core/error.hpp"
#include "core/io/readers.hpp"
#include "core/schema/choices.hpp"

#include <algorithm>
#include <cctype>
#include <cmath>
#include <iterator>
#include <optional>
#include <set>

namespace rl::io::readers_detail {

namespace {

constexpr double kMaxRate = 1e30; // FLOP/s or B/s: far beyond any device, still finite
// ... and at least this, as a preset's peaks and bandwidths (a slower rate is a unit slip, and
// its log-ratio would swamp every fit)
constexpr double kMinRate = 1e6;
constexpr double kMaxTokens = 1 << 30; // a prompt or output length

// The cells of one CSV line (RFC 4180 quoting); false on an unterminated quote.
bool split_cells(std::string_view line, std::vector<std::string> &cells) {
  cells.clear();
  std::string cell;
  bool in_quotes = false, was_quoted = false;
  for (std::size_t i = 0; i < line.size(); ++i) {
    const char c = line[i];
    if (in_quotes) {
      if (c == '"' && i + 1 < line.size() && line[i + 1] == '"') {
        cell += '"';
        ++i;
      } else if (c == '"') {
        in_quotes = false;
      } else {
        cell += c;
      }
    } else if (c == '"' && trim(cell).empty()) {
      in_quotes = was_quoted = true;
      cell.clear();
    } else if (c == ',') {
      cells.emplace_back(was_quoted ? cell : std::string(trim(cell)));
      cell.clear();
      was_quoted = false;
    } else if (!(was_quoted && (c == ' ' || c == '\t'))) {
      cell += c;
    }
  }
  cells.emplace_back(was_quoted ? cell : std::string(trim(cell)));
  return !in_quotes;
}

std::string lower(std::string_view s) {
  std::string out;
  for (const char c : s)
    out += static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
  return out;
}

// One CSV file: the header, then one data row at a time.
class Csv {
public:
  Csv(std::string_view text, const std::string &name) : lines_(text, name), name_(name) {
    Line l;
    while (lines_.next(l)) {
      const std::string_view t = trim(l.text);
      if (t.empty() || t[0] == '#')
        continue;
      if (!split_cells(t, header_))
        throw ConfigError(where(name, l.number), "an unterminated quote in the header");
      if (header_.size() > kMaxMeasurementColumns)
        throw ConfigError(where(name, l.number),
                          "the header has " + std::to_string(header_.size()) +
                              " columns; the limit is " + std::to_string(kMaxMeasurementColumns));
      std::set<std::string> seen;
      for (std::string &h : header_) {
        h = lower(h);
        if (!h.empty() && !seen.insert(h).second)
          throw ConfigError(where(name, l.number),
                            "column " + quote_text(h) + " is named twice in the header");
      }
      header_line_ = l.number;
      return;
    }
    throw ConfigError(name, "is empty: expected a header row, then one row a measurement");
  }

  // Moves to the next data row; false at the end.
  bool next() {
    Line l;
    while (lines_.next(l)) {
      const std::string_view t = trim(l.text);
      if (t.empty() || t[0] == '#')
        continue;
      line_ = l.number;
      if (!split_cells(t, cells_))
        throw ConfigError(where(name_, line_), "an unterminated quote");
      if (cells_.size() != header_.size())
        throw ConfigError(where(name_, line_), std::to_string(cells_.size()) +
                                                   " cells; the header (line " +
                                                   std::to_string(header_line_) + ") has " +
                                                   std::to_string(header_.size()));
      ++rows_;
      check_row_count(rows_, name_, line_);
      return true;
    }
    return false;
  }

  long long line() const { return line_; }
  std::size_t rows() const { return rows_; }
  // The index of a column, -1 when the header has none.
  int find(const char *column) const {
    for (std::size_t i = 0; i < header_.size(); ++i)
      if (header_[i] == column)
        return static_cast<int>(i);
    return -1;
  }
  // The index of a column the format needs.
  int need(const char *column) const {
    const int i = find(column);
    if (i < 0) {
      std::string names;
      for (const std::string &h : header_)
        names += (names.empty() ? "" : ", ") + h;
      throw ConfigError(where(name_, header_line_), "column '" + std::string(column) +
                                                        "' is missing (the header has: " + names +
                                                        ")");
    }
    return i;
  }
  const std::string &cell(int c) const { return cells_[static_cast<std::size_t>(c)]; }
  bool given(int c) const { return c >= 0 && !cell(c).empty(); }

  [[noreturn]] void fail(int c, const std::string &what) const {
    throw ConfigError(where(name_, line_),
                      "column '" + header_[static_cast<std::size_t>(c)] + "': " + what);
  }
  // A number in (0, hi].
  double positive(int c, double hi = kMaxRate) const { return number(c, false, hi); }
  // A whole number in [1, hi].
  double count(int c, double hi) const {
    double v = 0;
    if (!parse_number(cell(c), v) || v < 1 || v != std::floor(v))
      fail(c, "expected a positive integer, got " + quote_text(cell(c)));
    if (v > hi)
      fail(c, cell(c) + " is beyond the limit of " + number_text(hi));
    return v;
  }
  // A number in [0, hi] (a class with no kernel, a gap of 0).
  double nonnegative(int c, double hi) const { return number(c, true, hi); }
  const std::string &text(int c) const {
    if (cell(c).empty())
      fail(c, "is empty");
    return cell(c);
  }
  // A rate computed from this row's cells, checked within [kMinRate, kMaxRate].
  double rate(int c, double v, const char *unit) const {
    if (!(v >= kMinRate && v <= kMaxRate))
      fail(c, "gives " + number_text(v) + " " + unit + ", outside [1e6, 1e30]: not a measured " +
                  "rate (check the units)");
    return v;
  }
  void need_rows() const {
    if (rows_ == 0)
      throw ConfigError(name_,
                        "has a header (line " + std::to_string(header_line_) + ") but no rows");
  }

private:
  double number(int c, bool zero, double hi) const {
    double v = 0;
    if (!parse_number(cell(c), v) || v < 0 || (v == 0 && !zero))
      fail(c, std::string(zero ? "expected a number >= 0" : "expected a positive number") +
                  ", got " + quote_text(cell(c)));
    if (v > hi)
      fail(c, cell(c) + " is beyond the limit of " + number_text(hi));
    return v;
  }

  LineCursor lines_;
  const std::string &name_;
  std::vector<std::string> header_, cells_;
  long long header_line_ = 0, line_ = 0;
  std::size_t rows_ = 0;
};

// The Dtype names the sweeps write (core/schema/choices: fp16 is Dtype::fp16).
Dtype dtype_of(const Csv &csv, int c) {
  constexpr std::pair<const char *, Dtype> kNames[] = {{"bf16", Dtype::bf16},
                                                       {"fp16", Dtype::fp16},
                                                       {"fp32", Dtype::fp32},
                                                       {"fp8", Dtype::fp8},
                                                       {"int8", Dtype::int8}};
  const std::string s = lower(csv.cell(c));
  for (const auto &[n, d] : kNames)
    if (s == n)
      return d;
  csv.fail(c, quote_text(csv.cell(c)) + " is not one of bf16, fp16, fp32, fp8, int8");
}

bool flag_of(const Csv &csv, int c) {
  const std::string s = lower(csv.cell(c));
  if (s == "true" || s == "1")
    return true;
  if (s == "false" || s == "0")
    return false;
  csv.fail(c, "expected true, false, 1 or 0, got " + quote_text(csv.cell(c)));
}

std::string whole(double v) {
  return number_text(v);
}

ComponentPoint point(ComponentKind kind, const std::string &name, long long line) {
  ComponentPoint p;
  p.kind = kind;
  p.source = where(name, line);
  p.fitted = true;
  return p;
}

} // namespace

// tools/measure/gemm_sweep.py: m,n,k,dtype,seconds (one GEMM [m x k] x [k x n]); 2mnk FLOPs.
Measurements read_gemm_csv(std::string_view text, const std::string &name) {
  Csv csv(text, name);
  const int cm = csv.need("m"), cn = csv.need("n"), ck = csv.need("k");
  const int cd = csv.need("dtype"), cs = csv.need("seconds");
  Measurements out;
  while (csv.next()) {
    ComponentPoint p = point(ComponentKind::gemm, name, csv.line());
    p.m = csv.count(cm, kMaxMeasuredDim);
    p.n = csv.count(cn, kMaxMeasuredDim);
    p.k = csv.count(ck, kMaxMeasuredDim);
    p.precision = dtype_of(csv, cd);
    p.measured = csv.rate(cs, 2 * p.m * p.n * p.k / csv.positive(cs), "FLOP/s");
    p.name = "gemm " + lower(csv.cell(cd)) + " " + whole(p.m) + "x" + whole(p.n) + "x" + whole(p.k);
    out.components.push_back(p);
  }
  csv.need_rows();
  return out;
}

// tools/measure/ attention sweep: batch,heads,seq,head_dim,causal,dtype,fwd_seconds,bwd_seconds
// (+ kv_heads, which does not change the FLOPs); the rate in FlashAttention's convention (Dao
// 2023 sec. 4.1: forward + backward = 3.5 x forward, halved when causal).
Measurements read_attention_csv(std::string_view text, const std::string &name) {
  Csv csv(text, name);
  const int cb = csv.need("batch"), ch = csv.need("heads"), cq = csv.need("seq");
  const int cd = csv.need("head_dim"), cc = csv.need("causal"), ct = csv.need("dtype");
  const int cf = csv.need("fwd_seconds"), cw = csv.need("bwd_seconds");
  Measurements out;
  while (csv.next()) {
    ComponentPoint p = point(ComponentKind::attention, name, csv.line());
    p.batch = csv.count(cb, kMaxMeasuredDim);
    p.heads = csv.count(ch, kMaxMeasuredDim);
    p.seq = csv.count(cq, kMaxMeasuredDim);
    p.head_dim = csv.count(cd, 4096);
    p.causal = flag_of(csv, cc);
    p.precision = dtype_of(csv, ct);
    const double seconds = csv.positive(cf) + csv.positive(cw);
    p.measured =
        csv.rate(cf, flash_attention_flops(p.batch, p.heads, p.seq, p.head_dim, p.causal) / seconds,
                 "FLOP/s");
    p.name = "attention " + lower(csv.cell(ct)) + " b" + whole(p.batch) + " h" + whole(p.heads) +
             " s" + whole(p.seq) + " d" + whole(p.head_dim) + (p.causal ? " causal" : "");
    out.components.push_back(p);
  }
  csv.need_rows();
  return out;
}

// tools/measure/ element-wise sweep: kernel,bytes,seconds (bytes read + written).
Measurements read_elementwise_csv(std::string_view text, const std::string &name) {
  Csv csv(text, name);
  const int ck = csv.need("kernel"), cb = csv.need("bytes"), cs = csv.need("seconds");
  Measurements out;
  while (csv.next()) {
    ComponentPoint p = point(ComponentKind::hbm, name, csv.line());
    p.name = csv.text(ck);
    p.measured = csv.rate(cs, csv.positive(cb) / csv.positive(cs), "B/s");
    out.components.push_back(p);
  }
  csv.need_rows();
  return out;
}

// AIConfigurator's per-operation tables as docs/data/aic/ flattens them (systems/data/<gpu>/
// .../*_perf.parquet): an engine's all-reduce kernel, its dense GEMMs, or an FP8 recipe's cast
// and amax kernels, each row one timing in seconds.
Measurements read_kernels_csv(std::string_view text, const std::string &name) {
  using Kind = KernelTiming::Kind;
  Csv csv(text, name);
  const int ce = csv.need("engine"), cv = csv.need("version"), cs = csv.need("latency_s");
  const bool allreduce = csv.find("message_bytes") >= 0;
  const bool quantize = !allreduce && csv.find("op") >= 0;
  const int cg = allreduce ? -1 : csv.need("gpu");
  Measurements out;
  while (csv.next()) {
    KernelTiming t;
    t.name = where(name, csv.line());
    t.engine = lower(csv.text(ce));
    t.version = csv.text(cv);
    t.seconds = csv.positive(cs, 3600);
    if (allreduce) {
      t.kind = Kind::allreduce;
      t.m = csv.count(csv.need("message_bytes"), 1e15);
      t.n = csv.count(csv.need("num_gpus"), 1 << 16);
    } else if (quantize) {
      const int co = csv.need("op");
      const std::string op = lower(csv.text(co));
      if (op != "cast" && op != "amax")
        csv.fail(co, quote_text(csv.cell(co)) + " is not one of cast, amax");
      t.kind = op == "cast" ? Kind::cast : Kind::amax;
      t.gpu = lower(csv.text(cg));
      t.m = csv.count(csv.need("m"), kMaxMeasuredDim);
      t.k = csv.count(csv.need("k"), kMaxMeasuredDim);
    } else {
      const int cd = csv.need("dtype");
      const std::string d = lower(csv.text(cd));
      if (d != "bf16" && d != "fp8" && d != "fp4")
        csv.fail(cd, quote_text(csv.cell(cd)) + " is not one of bf16, fp8, fp4");
      t.kind = Kind::gemm;
      t.gpu = lower(csv.text(cg));
      t.dtype = d == "bf16" ? Dtype::bf16 : d == "fp8" ? Dtype::fp8 : Dtype::nvfp4;
      t.m = csv.count(csv.need("m"), kMaxMeasuredDim);
      t.n = csv.count(csv.need("n"), kMaxMeasuredDim);
      t.k = csv.count(csv.need("k"), kMaxMeasuredDim);
    }
    out.kernels.push_back(t);
  }
  csv.need_rows();
  return out;
}

// tools/measure/layer_profile.py: kernel_class,calls,seconds and the layer's shape on every
// row (hidden,heads,kv_heads,ffn,seq,micro_batch,dtype). One file is one layer's forward +
// backward: each class at most once, the shape the same on every row.
Measurements read_layer_profile_csv(std::string_view text, const std::string &name) {
  static const char *const kClasses[] = {"gemm",       "attention",   "norm",           "rotary",
                                         "activation", "elementwise", "reduce/softmax", "memcpy",
                                         "other",      "gap"};
  Csv csv(text, name);
  const int cc = csv.need("kernel_class"), cn = csv.need("calls"), cs = csv.need("seconds");
  const int shape[] = {csv.need("hidden"), csv.need("heads"), csv.need("kv_heads"),
                       csv.need("ffn"),    csv.need("seq"),   csv.need("micro_batch")};
  const int cd = csv.need("dtype");
  LayerProfile p;
  p.file = name;
  i64 *const dims[] = {&p.hidden, &p.heads, &p.kv_heads, &p.ffn, &p.seq, &p.micro_batch};
  while (csv.next()) {
    const std::string cls = lower(csv.text(cc));
    if (std::find_if(std::begin(kClasses), std::end(kClasses),
                     [&](const char *k) { return cls == k; }) == std::end(kClasses))
      csv.fail(cc, quote_text(csv.cell(cc)) +
                       " is not a class layer_profile.py writes (gemm, attention, norm, rotary, "
                       "activation, elementwise, reduce/softmax, memcpy, other, gap)");
    for (const auto &[k, s] : p.seconds)
      if (k == cls)
        csv.fail(cc, quote_text(cls) + " appears twice: one file is one layer");
    for (int i = 0; i < 6; ++i) {
      const i64 v = static_cast<i64>(csv.count(shape[i], kMaxMeasuredDim));
      if (csv.rows() > 1 && v != *dims[i])
        csv.fail(shape[i], "differs from the first row's " + std::to_string(*dims[i]) +
                               ": one file is one layer");
      *dims[i] = v;
    }
    const Dtype d = dtype_of(csv, cd);
    if (csv.rows() > 1 && d != p.dtype)
      csv.fail(cd, "differs from the first row's: one file is one layer");
    p.dtype = d;
    p.kernels += static_cast<i64>(csv.nonnegative(cn, 1e9));
    p.seconds.emplace_back(cls, csv.nonnegative(cs, 1e6));
  }
  csv.need_rows();
  if (p.hidden % p.heads != 0 || p.heads % p.kv_heads != 0)
    throw ConfigError(name, "hidden " + std::to_string(p.hidden) + ", heads " +
                                std::to_string(p.heads) + ", kv_heads " +
                                std::to_string(p.kv_heads) +
                                ": hidden must be a multiple of heads, heads of kv_heads");
  if (!(p.total() > 0))
    throw ConfigError(name, "no class has a time: nothing was measured");
  Measurements out;
  out.layers.push_back(p);
  return out;
}

// A serving row's own settings (the columns of ../calibration's B200 file; each optional):
// hardware, pp, attention_dp, moe_tp, ep, precision, kv_dtype (dtype names as the
// configuration's), requests_per_client, max_num_tokens, speculative (`mtp<k>`: k draft
// tokens of the model's MTP layer; `eagle3`: InferenceX's SGLang DeepSeek-R1 launches run
// SGLang's EAGLE over the MTP layer with 2 steps, so 2 draft tokens), lengths (`fixed` or
// `uniform <lo>-1.0 of isl/osl`: the lengths' mean is simulated); and what a launch script
// set: memory_fraction (the engine's memory argument), recv_interval (SGLang
// --scheduler-recv-interval), batch_wait_iters and batch_wait_tokens_ratio, adp_balance_iters
// (TensorRT-LLM: batch waiting, the attention-DP balance's timeout_iters), max_batch (the
// sequences run at once: SGLang --max-running-requests, vLLM --max-num-seqs, TensorRT-LLM
// max_batch_size).
struct RunColumns {
  int hardware, pp, attention_dp, moe_tp, ep, precision, kv_dtype, requests_per_client, max_tokens,
      speculative, lengths, memory_fraction, recv_interval, batch_wait_iters,
      batch_wait_tokens_ratio, adp_balance_iters, max_batch;
};
std::optional<Dtype> dtype_cell(const Csv &csv, int c) {
  if (!csv.given(c))
    return std::nullopt;
  const auto &l = schema::choices<Dtype>();
  if (const auto v = schema::value_in(l, lower(csv.cell(c))))
    return static_cast<Dtype>(*v);
  csv.fail(c, quote_text(csv.cell(c)) + " is not one of " + schema::names_text(l));
}
void read_run_settings(const Csv &csv, const RunColumns &c, ServingSample &s) {
  constexpr double kMaxWays = 1 << 20;
  if (csv.given(c.hardware))
    s.hardware = csv.cell(c.hardware);
  const auto ways = [&](int col) {
    return csv.given(col) ? static_cast<i64>(csv.count(col, kMaxWays)) : i64{0};
  };
  s.pp = ways(c.pp);
  s.attention_dp = ways(c.attention_dp);
  s.moe_tp = ways(c.moe_tp);
  s.ep = ways(c.ep);
  s.precision = dtype_cell(csv, c.precision);
  s.kv_dtype = dtype_cell(csv, c.kv_dtype);
  s.requests_per_client = csv.given(c.requests_per_client)
                              ? static_cast<i64>(csv.count(c.requests_per_client, 1 << 20))
                              : 0;
  s.max_tokens = csv.given(c.max_tokens) ? static_cast<i64>(csv.count(c.max_tokens, 1 << 24)) : 0;
  s.memory_fraction = csv.given(c.memory_fraction) ? csv.positive(c.memory_fraction, 1) : 0;
  s.recv_interval =
      csv.given(c.recv_interval) ? static_cast<i64>(csv.count(c.recv_interval, 1e6)) : 0;
  s.batch_wait_iters =
      csv.given(c.batch_wait_iters) ? static_cast<i64>(csv.count(c.batch_wait_iters, 1e6)) : 0;
  s.batch_wait_tokens_ratio =
      csv.given(c.batch_wait_tokens_ratio) ? csv.positive(c.batch_wait_tokens_ratio, 1) : 0;
  s.adp_balance_iters =
      csv.given(c.adp_balance_iters) ? static_cast<i64>(csv.count(c.adp_balance_iters, 1e6)) : 0;
  s.max_batch = csv.given(c.max_batch) ? static_cast<i64>(csv.count(c.max_batch, 1 << 20)) : 0;
  if (csv.given(c.speculative)) {
    const std::string v = lower(csv.cell(c.speculative));
    double k = 0;
    if (v == "eagle3")
      s.draft_tokens = 2;
    else if (v.size() > 3 && v.compare(0, 3, "mtp") == 0 && parse_number(v.substr(3), k) &&
             k >= 1 && k <= 16 && k == std::floor(k))
      s.draft_tokens = static_cast<i64>(k);
    else
      csv.fail(c.speculative, quote_text(csv.cell(c.speculative)) +
                                  " is not mtp<k> (k draft tokens, 1-16) or eagle3");
  }
  if (csv.given(c.lengths)) {
    const std::string v = lower(csv.cell(c.lengths));
    constexpr std::string_view kPre = "uniform ", kPost = "-1.0 of isl/osl";
    double lo = 0;
    if (v == "fixed") {
      s.length_low = 1;
    } else if (v.size() > kPre.size() + kPost.size() && v.compare(0, kPre.size(), kPre) == 0 &&
               v.compare(v.size() - kPost.size(), kPost.size(), kPost) == 0 &&
               parse_number(v.substr(kPre.size(), v.size() - kPre.size() - kPost.size()), lo) &&
               lo > 0 && lo <= 1) {
      s.length_low = lo;
    } else {
      csv.fail(c.lengths, quote_text(csv.cell(c.lengths)) +
                              " is not 'fixed' or 'uniform <lo>-1.0 of isl/osl' (0 < lo <= 1)");
    }
    s.input_len = std::max(1.0, std::round(s.input_len * (1 + s.length_low) / 2));
    s.output_len = std::max(1.0, std::round(s.output_len * (1 + s.length_low) / 2));
  }
}

// Serving runs, one a row, in the layout of AIConfigurator's measured sample
// (ai-dynamo/aiconfigurator systems/silicon_sample.csv): model,engine,engine_version,hardware,
// precision,tp,pp,isl,osl,concurrency,ttft_ms,tpot_ms; request_rate may stand for concurrency,
// e2e_ms and output_tokens_per_s are read when given.
Measurements read_serving_csv(std::string_view text, const std::string &name) {
  Csv csv(text, name);
  const int ci = csv.need("isl"), co = csv.need("osl");
  const int cf = csv.need("ttft_ms"), cp = csv.need("tpot_ms");
  const int cc = csv.find("concurrency"), cr = csv.find("request_rate");
  if (cc < 0 && cr < 0)
    csv.need("concurrency");
  const int cmodel = csv.find("model"), cengine = csv.find("engine");
  const int cversion = csv.find("engine_version"), ctp = csv.find("tp");
  const int ce2e = csv.find("e2e_ms"), ctput = csv.find("output_tokens_per_s");
  const int chw = csv.find("hardware"), cpp = csv.find("pp"), cadp = csv.find("attention_dp");
  const int cmtp = csv.find("moe_tp"), cep = csv.find("ep"), cprec = csv.find("precision");
  const int ckv = csv.find("kv_dtype"), crpc = csv.find("requests_per_client");
  const int cmax = csv.find("max_num_tokens"), cspec = csv.find("speculative");
  const int clen = csv.find("lengths"), cmem = csv.find("memory_fraction");
  const int crecv = csv.find("recv_interval"), cwait = csv.find("batch_wait_iters");
  const int cratio = csv.find("batch_wait_tokens_ratio"), cadpb = csv.find("adp_balance_iters");
  const int cbatch = csv.find("max_batch");
  Measurements out;
  std::vector<long long> lines;
  while (csv.next()) {
    ServingSample s;
    s.model = csv.given(cmodel) ? csv.cell(cmodel) : "";
    s.engine = csv.given(cengine) ? csv.cell(cengine) : "";
    s.version = csv.given(cversion) ? csv.cell(cversion) : "";
    s.tp = csv.given(ctp) ? static_cast<i64>(csv.count(ctp, 1 << 20)) : 0;
    if (csv.given(cc)) {
      s.concurrency = static_cast<i64>(csv.count(cc, 1 << 30));
    } else if (cr >= 0) {
      if (lower(csv.cell(cr)) == "inf")
        csv.fail(cr, "'inf' with no concurrency: the load the run was driven with is unknown");
      s.request_rate = csv.positive(cr, 1e9);
    } else {
      csv.count(cc, 1 << 30); // names the empty cell
    }
    s.input_len = csv.positive(ci, kMaxTokens);
    s.output_len = csv.positive(co, kMaxTokens);
    read_run_settings(csv,
                      {chw, cpp, cadp, cmtp, cep, cprec, ckv, crpc, cmax, cspec, clen, cmem, crecv,
                       cwait, cratio, cadpb, cbatch},
                      s);
    s.ttft.mean = csv.positive(cf, kMaxMeasuredMs) / 1e3;
    s.tpot.mean = csv.positive(cp, kMaxMeasuredMs) / 1e3;
    if (csv.given(ce2e))
      s.e2e.mean = csv.positive(ce2e, kMaxMeasuredMs) / 1e3;
    if (csv.given(ctput))
      s.output_tokens_per_s = csv.positive(ctput, 1e12);
    s.name = (s.engine.empty() ? std::string("serving") : s.engine) +
             (s.version.empty() ? "" : " " + s.version) +
             (s.tp > 0 ? " tp" + std::to_string(s.tp) : "") +
             (s.attention_dp > 1 ? " dp" + std::to_string(s.attention_dp) : "") +
             (s.ep > 1 ? " ep" + std::to_string(s.ep) : "") +
             (s.draft_tokens > 0 ? " mtp" + std::to_string(s.draft_tokens) : "") + " " +
             whole(s.input_len) + "/" + whole(s.output_len) +
             (s.concurrency > 0 ? " c=" + std::to_string(s.concurrency)
                                : " rate=" + number_text(s.request_rate));
    out.serving.push_back(s);
    lines.push_back(csv.line());
  }
  csv.need_rows();
  name_duplicates(out.serving, lines);
  return out;
}

} // namespace rl::io::readers_detail
