// [SECTION] printing  [SECTION] entry
#include "shell/tx8_command.hpp"

#include "core/io/config_json.hpp"
#include "core/io/json_reader.hpp"
#include "core/io/tx8_json.hpp"
#include "core/io/units.hpp"
#include "core/report/tx8_report.hpp"
#include "core/tx8/arch.hpp"
#include "core/tx8/request.hpp"
#include "shell/format.hpp"

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <string>
#include <vector>

namespace rl::shell {

namespace {

// [SECTION] one operator and video request: the report layer's lines and tables
// (core/report/tx8_report), the ones the page's tx8 panel draws.
void print_tx8(std::ostream &os, const Tx8Report &rep, double seconds) {
  os << "ridgeline tx8: " << rep.title << "\n";
  for (const ReportText &line : rep.request)
    os << "  " << line.text << "\n";
  os << "  " << rep.die.text << "\n";
  for (const std::string &line : rep.scheme)
    os << "  " << line << "\n";
  if (!rep.op_detail.empty()) { // one operator
    os << "\n";
    table_of(rep.ops).print(os);
    os << "\n";
    table_of(rep.op_detail).print(os);
  } else {
    print_section(os, rep.ops);
    print_section(os, rep.step);
    print_section(os, rep.totals);
    print_section(os, rep.comm);
    if (!rep.schemes.empty()) {
      ReportTable shown = rep.schemes; // the best 12; --json lists them all
      if (shown.rows.size() > 12) {
        shown.note =
            "... " + std::to_string(shown.rows.size() - 12) + " more (--json lists them all)";
        shown.rows.resize(12);
      }
      print_section(os, shown);
    }
  }
  print_section(os, rep.presets);
  os << "\n" << rep.search << " in " << units::seconds(seconds) << "\n";
}

} // namespace

// [SECTION] entry
const char *const kTx8Help = R"(Maps one operator or a whole Open-Sora STDiT3 video request onto tx8 dies (16 tiles,
per-tile SRAM, shared DRAM, ring NoC) and, for a request, onto a mesh of dies.
  one operator  {"hardware": "tx8", "workload": {"mode": "tx8-op", "op": {"type": "gemm",
                "m": 4096, "k": 1152, "n": 4608, "fuse": "silu"}}}   (types gemm, vector,
                flash_attention; optional "tiling", "stationary", "loop_order",
                "heads_fused", "in_sram", "out_sram")
  video request {"model": "stdit3-720m", "hardware": "tx8", "cluster": "tx8-2x2",
                "workload": {"mode": "video", "batch": 1, "seconds": 4, "resolution":
                [720, 1280], "text_tokens": 300, "steps": 30}, "parallel": {"sp_kind":
                "dsp"}}   (sp_kind dsp | ulysses | ring | megatron-sp | usp; without it the
                planner picks the best scheme and mesh split; "pp", "stage_ids",
                "submeshes" for pipeline stages)
Prints the per-operator table (tiling, latency, compute / DRAM / NoC time, bytes,
utilization, search time), the totals per block, per step and for the whole request, the
die-to-die communication and the schemes compared.
  --json     the same as JSON (ops[], total, comm[], video, parallel, schemes[], search)
  --presets  also map with the reference preset tilings (TmTn 256x32, FFN-down 4x128, flash
             attention Tx_Ty 256x256) and show what the search gains
)";

int run_tx8(const nlohmann::json &config, bool json_out, bool compare_presets, std::ostream &out) {
  const Config c = io::parse_config(config);
  tx8::arch_of(c.hardware, "hardware");
  tx8::Tx8Options o;
  o.compare_presets = compare_presets;
  // the wall time is measured here: the core keeps no clock
  const auto t0 = std::chrono::steady_clock::now();
  const tx8::Tx8Result r = tx8::solve(c, o);
  const double seconds =
      std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
  if (json_out) {
    nlohmann::json j = io::to_json(r);
    j["search"]["seconds"] = seconds;
    out << io::dump(j, 2) << "\n";
    return 0;
  }
  print_tx8(out, tx8_report(c, r), seconds);
  return 0;
}

} // namespace rl::shell
