// ridgeline report: a tx8 mapping (one operator, or an STDiT3 video request on a mesh of dies)
// as the lines and tables `ridgeline tx8` prints and the page's tx8 panel draws: the request
// and die, the operators with their tilings, one operator's cost in detail, the totals per
// block, step and request, the parts of a step, the die-to-die communication, the schemes
// and mesh splits compared, and the reference preset tilings against the searched ones.
#pragma once

#include "core/config.hpp"
#include "core/report/estimate_report.hpp"
#include "core/report/table.hpp"
#include "core/tx8/request.hpp"

#include <string>
#include <vector>

namespace rl {

struct Tx8Report {
  std::string title;               // "stdit3-720m video inference on tx8-2x2 (...)"
  std::vector<ReportText> request; // video: the request, its latent and tokens
  ReportText die;                  // the die: tiles, units, SRAM, DRAM, NoC, ridge
  std::vector<std::string> scheme; // video: the scheme, then one line per pipeline stage
  ReportTable ops;                 // one row per operator (video: x/step, x count, stage)
  ReportTable op_detail;           // one operator: its latency, rounds, bytes, floor
  ReportTable step;                // video: the parts of a sampling step (the page's bar)
  ReportTable totals;              // video: per block, per step, per request
  ReportTable comm;                // video: die-to-die communication per step
  ReportTable schemes;             // video: every scheme and mesh split, best first
  ReportTable presets;             // with the reference presets: searched vs preset tiling
  std::string search;              // the searches' statistics (no time: the core has no clock)
  int chosen_scheme = -1;          // the row of `schemes` the result is (-1: none)
};

Tx8Report tx8_report(const Config &c, const tx8::Tx8Result &r);

} // namespace rl
