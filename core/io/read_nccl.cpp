// ridgeline io: nccl-tests' stdout (NVIDIA/nccl-tests src/util.cu: writeDeviceReport,
// writeResultHeader, writeBenchmarkLinePreamble/Body; src/common.cu: run()). One test reads:
//   # Collective test starting: all_reduce_perf          (nccl-tests 2.16 and later)
//   # nThread 1 nGpus 8 minBytes 8 maxBytes 8589934592 step: 2(factor) ...
//   #  Rank  0 Group  0 Pid 1234 on   host-01 device  0 [0x18] NVIDIA H100 80GB HBM3
//   #       size   count   type   redop   root   time   algbw   busbw  #wrong   time ...
//              8       2  float     sum     -1  16.02    0.00    0.00       0  15.84 ...
//   # Avg bus bandwidth    : 121.4
// Several tests one after another read as one file.
#include "core/calibrate/components.hpp"
#include "core/comm/collective.hpp"
#include "core/error.hpp"
#include "core/io/readers.hpp"

#include <algorithm>
#include <cctype>
#include <cmath>
#include <optional>
#include <set>

namespace rl::io::readers_detail {

namespace {

// The tests whose bus bandwidth maps to a Collective; the others nccl-tests builds
// (broadcast, reduce, gather, scatter, alltoallv, hypercube) are refused by name.
struct TestKind {
  const char *stem;
  Collective op;
};
constexpr TestKind kTests[] = {{"all_reduce", Collective::allreduce},
                               {"all_gather", Collective::allgather},
                               {"reduce_scatter", Collective::reduce_scatter},
                               {"alltoall", Collective::alltoall},
                               {"sendrecv", Collective::p2p}};

bool ident(char c) {
  return std::isalnum(static_cast<unsigned char>(c)) || c == '_';
}

// The stem of the first nccl-tests binary named in s ("/opt/build/all_reduce_perf_mpi -b 8"
// -> "all_reduce"); "" when none.
std::string binary_in(std::string_view s) {
  for (std::size_t p = s.find("_perf"); p != std::string_view::npos; p = s.find("_perf", p + 1)) {
    const std::size_t after = p + 5;
    if (after < s.size() && ident(s[after]) && s.substr(after, 4) != "_mpi")
      continue;
    std::size_t b = p;
    while (b > 0 && ident(s[b - 1]))
      --b;
    if (b < p)
      return std::string(s.substr(b, p - b));
  }
  return "";
}

// The collective of a file name that says which ("nccl_allreduce_h100.txt").
std::string stem_of_name(const std::string &name) {
  std::string n;
  for (const char c : name)
    n += c == '-' ? '_' : static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
  constexpr std::pair<const char *, const char *> kHints[] = {{"all_reduce", "all_reduce"},
                                                              {"allreduce", "all_reduce"},
                                                              {"all_gather", "all_gather"},
                                                              {"allgather", "all_gather"},
                                                              {"reduce_scatter", "reduce_scatter"},
                                                              {"reducescatter", "reduce_scatter"},
                                                              {"alltoall", "alltoall"},
                                                              {"sendrecv", "sendrecv"}};
  for (const auto &[hint, stem] : kHints)
    if (n.find(hint) != std::string::npos)
      return stem;
  return "";
}

std::vector<std::string_view> words(std::string_view s) {
  std::vector<std::string_view> out;
  std::size_t i = 0;
  while (i < s.size()) {
    while (i < s.size() && (s[i] == ' ' || s[i] == '\t'))
      ++i;
    const std::size_t b = i;
    while (i < s.size() && s[i] != ' ' && s[i] != '\t')
      ++i;
    if (i > b)
      out.push_back(s.substr(b, i - b));
  }
  return out;
}

// Where a result row's values sit: from the column header when the file has one, else
// nccl-tests' layout counted from the row's end.
struct Columns {
  bool from_header = false;
  long long header_line = 0;
  std::size_t width = 0; // columns the header names
  std::size_t size = 0, type = 0;
  bool has_type = false;
  std::size_t time[2] = {0, 0}, busbw[2] = {0, 0}, wrong[2] = {0, 0};
};

std::optional<Columns> header_columns(const std::vector<std::string_view> &w, long long line) {
  Columns c;
  c.from_header = true;
  c.header_line = line;
  c.width = w.size();
  int variant = -1;
  bool size = false;
  for (std::size_t i = 0; i < w.size(); ++i) {
    const std::string_view t = w[i];
    if (t == "size" || t == "bytes") {
      c.size = i;
      size = true;
    } else if (t == "type") {
      c.type = i;
      c.has_type = true;
    } else if ((t == "time" || t == "cputime") && variant < 1) {
      c.time[++variant] = i;
    } else if (t == "busbw" && variant >= 0) {
      c.busbw[variant] = i;
    } else if ((t == "#wrong" || t == "wrong" || t == "error" || t == "res") && variant >= 0) {
      c.wrong[variant] = i;
    }
  }
  if (!size || variant != 1 || c.busbw[0] == 0 || c.busbw[1] == 0)
    return std::nullopt;
  return c;
}

// One test of the file: its collective, ranks and hosts.
struct Test {
  std::string stem;
  bool named_by_start = false; // "# Collective test starting:" began it
  bool saw_threads = false;
  long long max_rank = -1;
  std::set<long long> ranks;
  std::set<std::string> hosts;
  long long threads_gpus = 0;
  std::optional<Columns> columns;
  bool rows = false; // a result row was read
  bool any_row() const { return rows; }
};

long long rank_count(const Test &t) {
  const long long listed =
      std::max<long long>(static_cast<long long>(t.ranks.size()), t.max_rank + 1);
  return listed > 0 ? listed : t.threads_gpus;
}

// "#  Rank  3 Group  0 Pid 1234 on host-01 device  3 [0x5d] NVIDIA H100 80GB HBM3"
void read_rank(Test &t, const std::vector<std::string_view> &w) {
  double rank = 0;
  if (w.size() >= 2 && parse_number(w[1], rank) && rank >= 0 && rank < 1e9 &&
      rank == std::floor(rank)) {
    t.ranks.insert(static_cast<long long>(rank));
    t.max_rank = std::max(t.max_rank, static_cast<long long>(rank));
  }
  for (std::size_t i = 0; i + 1 < w.size(); ++i)
    if (w[i] == "on") {
      t.hosts.insert(std::string(w[i + 1]));
      break;
    }
}

// "# nThread 1 nGpus 8 minBytes 8 ..."
long long threads_gpus(const std::vector<std::string_view> &w) {
  double threads = 0, gpus = 0;
  for (std::size_t i = 0; i + 1 < w.size(); ++i) {
    if (w[i] == "nThread")
      parse_number(w[i + 1], threads);
    if (w[i] == "nGpus")
      parse_number(w[i + 1], gpus);
  }
  const double n = threads * gpus;
  return n >= 1 && n < 1e9 ? static_cast<long long>(n) : 0;
}

std::optional<Collective> collective_of_stem(const std::string &stem) {
  for (const TestKind &k : kTests)
    if (stem == k.stem)
      return k.op;
  return std::nullopt;
}

class NcclReader {
public:
  NcclReader(std::string_view text, const std::string &name) : text_(text), name_(name) {}

  Measurements read() {
    LineCursor lines(text_, name_);
    Line l;
    while (lines.next(l)) {
      const std::string_view t = trim(without_rank_label(l.text));
      if (t.empty())
        continue;
      if (t[0] == '#')
        comment(trim(t.substr(1)), l.number);
      else if (std::isdigit(static_cast<unsigned char>(t[0])))
        row(t, l.number);
      else if (const std::string b = binary_in(t); !b.empty())
        pending_ = b; // a command line echoed before the test's output
    }
    if (out_.components.empty())
      throw ConfigError(name_, "no nccl-tests result rows: expected the table under "
                               "'#       size         count      type   redop    root     time "
                               "  algbw   busbw #wrong ...'");
    return out_;
  }

private:
  void begin(std::string stem, bool by_start) {
    test_ = Test();
    test_.stem = std::move(stem);
    test_.named_by_start = by_start;
    pending_.clear();
  }

  void comment(std::string_view b, long long line) {
    const std::vector<std::string_view> w = words(b);
    if (b.rfind("Collective test starting:", 0) == 0) {
      begin(binary_in(b), true);
    } else if (b.rfind("Collective test concluded:", 0) == 0) {
      return;
    } else if (!w.empty() && w[0] == "nThread") {
      if (!(test_.named_by_start && !test_.saw_threads && !test_.any_row()))
        begin(pending_, false);
      test_.saw_threads = true;
      test_.threads_gpus = threads_gpus(w);
    } else if (w.size() >= 4 && w[0] == "Rank" && w[2] == "Group") {
      read_rank(test_, w);
    } else if (!w.empty() && (w[0] == "size" || w[0] == "bytes")) {
      test_.columns = header_columns(w, line);
    } else if (const std::string bin = binary_in(b); !bin.empty()) {
      pending_ = bin;
    }
  }

  [[noreturn]] void fail(long long line, const std::string &what) const {
    throw ConfigError(where(name_, line), what);
  }

  std::string stem(long long line) {
    if (!test_.stem.empty())
      return test_.stem;
    if (!pending_.empty())
      return test_.stem = pending_;
    if (std::string s = stem_of_name(name_); !s.empty())
      return test_.stem = s;
    fail(line, "which collective is this? No '# Collective test starting: all_reduce_perf' "
               "line, no *_perf command and no hint in the file name (all_reduce, all_gather, "
               "reduce_scatter, alltoall, sendrecv)");
  }

  void row(std::string_view t, long long line) {
    const std::vector<std::string_view> w = words(t);
    Columns c;
    if (test_.columns) {
      c = *test_.columns;
      if (w.size() < c.width)
        fail(line, std::to_string(w.size()) + " columns; the header (line " +
                       std::to_string(c.header_line) + ") has " + std::to_string(c.width));
    } else {
      // No header: nccl-tests' row, "size count type [redop root] time algbw busbw #wrong"
      // twice; anything shorter is not a result row.
      if (w.size() < 9)
        return;
      const std::size_t n = w.size();
      c.size = 0;
      c.time[0] = n - 8, c.busbw[0] = n - 6, c.wrong[0] = n - 5;
      c.time[1] = n - 4, c.busbw[1] = n - 2, c.wrong[1] = n - 1;
      double probe = 0;
      if (!parse_number(w[c.busbw[0]], probe) || !parse_number(w[c.busbw[1]], probe))
        return;
    }
    double size = 0;
    if (!parse_number(w[c.size], size) || size < 0 || size != std::floor(size))
      fail(line, "column 'size': expected a whole number of bytes, got " + quote_text(w[c.size]));
    if (size > 1e15)
      fail(line, "column 'size': " + std::string(w[c.size]) + " bytes is beyond 1e15");
    test_.rows = true;
    if (size == 0)
      return;
    const std::string s = stem(line);
    const std::optional<Collective> op = collective_of_stem(s);
    if (!op)
      fail(line, "'" + s +
                     "_perf' has no bus bandwidth ridgeline fits; it reads all_reduce_perf, "
                     "all_gather_perf, reduce_scatter_perf, alltoall_perf and "
                     "sendrecv_perf");
    const long long ranks = rank_count(test_);
    if (ranks <= 0)
      fail(line, "the number of ranks is unknown: no '#  Rank' lines and no '# nThread N nGpus "
                 "M' line before the results");
    if (ranks < 2)
      fail(line, "1 rank: a collective needs 2 or more (nccl-tests ran on one GPU)");
    const std::string type = c.has_type && c.type < w.size() ? std::string(w[c.type]) : "";
    const long long nodes = std::max<long long>(1, static_cast<long long>(test_.hosts.size()));
    const char *variants[] = {"out-of-place", "in-place"};
    for (int v = 0; v < 2; ++v) {
      const std::string where_v = std::string(" (") + variants[v] + ")";
      double time_us = 0, busbw = 0, wrong = 0;
      // at most kMaxMeasuredMs (11 days): a slower "time" is a corrupt row, and its bandwidth
      // (bytes / time, 1e-301 B/s for 1e300 us) would make every fit's cost infinite
      if (!parse_number(w[c.time[v]], time_us) || time_us <= 0 || time_us > kMaxMeasuredMs * 1e3)
        fail(line, "column 'time'" + where_v +
                       ": expected a positive number of microseconds up to 1e12, got " +
                       quote_text(w[c.time[v]]));
      if (!parse_number(w[c.busbw[v]], busbw) || busbw < 0)
        fail(line, "column 'busbw'" + where_v + ": expected a number of GB/s, got " +
                       quote_text(w[c.busbw[v]]));
      if (c.wrong[v] != 0 && w[c.wrong[v]] != "N/A") {
        if (!parse_number(w[c.wrong[v]], wrong) || wrong < 0)
          fail(line, "column '#wrong'" + where_v + ": expected a count or N/A, got " +
                         quote_text(w[c.wrong[v]]));
        if (wrong > 0)
          fail(line, "column '#wrong'" + where_v + ": " + std::string(w[c.wrong[v]]) +
                         " wrong elements: the test failed its check; its timings are not read");
      }
      ComponentPoint p;
      p.kind = ComponentKind::collective;
      p.op = *op;
      p.group = ranks;
      p.nodes = nodes;
      p.bytes = size;
      // nccl-tests prints busbw with two decimals: below 1 GB/s it has too few digits, and the
      // same bandwidth follows from the size and time it printed (algbw = size / time, busbw =
      // algbw x the collective's factor, doc/PERFORMANCE.md).
      p.measured =
          busbw >= 1 ? busbw * 1e9 : size / (time_us * 1e-6) * bus_bandwidth_factor(*op, ranks);
      if (!(p.measured > 0 && p.measured <= 1e30))
        fail(line, "column 'busbw'" + where_v + ": gives " + number_text(p.measured) +
                       " B/s, beyond the limit of 1e30");
      p.name = s + " " + std::to_string(ranks) + " ranks " +
               (nodes > 1 ? std::to_string(nodes) + " nodes " : "") + number_text(size) + " B" +
               (type.empty() || type == "float" ? "" : " " + type) + " " + variants[v];
      p.source = where(name_, line);
      p.fitted = true;
      out_.components.push_back(p);
      check_row_count(out_.components.size(), name_, line);
    }
  }

  std::string_view text_;
  const std::string &name_;
  Test test_;
  std::string pending_; // a binary named before its test began
  Measurements out_;
};

} // namespace

Measurements read_nccl(std::string_view text, const std::string &name) {
  return NcclReader(text, name).read();
}

} // namespace rl::io::readers_detail
