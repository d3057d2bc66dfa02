// ridgeline io: `ridgeline calibrate` and the page's Calibrate tab share this: read files into
// measurement rows (core/io/readers), fit (core/calibrate/fit), and write the result as JSON,
// as presets a configuration can name, and as the overrides a URL carries.
#pragma once

#include "core/calibrate/fit.hpp"

#include <nlohmann/json.hpp>

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

namespace rl::io {

struct MeasurementFile {
  std::string name; // shown in errors ("nccl_all_reduce.txt:12: ...")
  std::string text;
};

// Files at most; with kMaxMeasurementBytes each (core/io/readers.hpp) and
// kMaxMeasurementTotalBytes in all.
constexpr std::size_t kMaxMeasurementFiles = 64;
constexpr std::uintmax_t kMaxMeasurementTotalBytes = std::uintmax_t{256} << 20;
// Refuses more than kMaxMeasurementFiles files or more than kMaxMeasurementTotalBytes in all,
// at "files": what a reader of paths checks before reading any (and calibrate_files again).
void check_measurement_files(std::size_t count, std::uintmax_t total_bytes);

// Reads every file (format detected from its text) and fits from `base`: a configuration
// object, or a scenario name; a bare hardware preset name is taken with its default cluster
// (the hardware's node) when it is one. ConfigError naming the file and line, or the field.
CalibrationResult calibrate_files(const nlohmann::json &base,
                                  const std::vector<MeasurementFile> &files,
                                  const CalibrateOptions &opt = {});

// calibrate_files in steps, for the page: a file read at each of the first steps, then the fit
// in pieces (CalibrationSteps, ~50 ms each). Errors are kept, not thrown, until result().
class CalibrationJob {
public:
  CalibrationJob(nlohmann::json base, std::vector<MeasurementFile> files, CalibrateOptions opt = {},
                 double budget = kUnitsPerStep);
  // One file read or one piece of the fit; false once done (finished or failed).
  bool step();
  bool done() const;
  double progress() const;   // in [0, 1]
  std::string stage() const; // "reading NAME", "fitting"
  // calibrate_files's result; its ConfigError rethrown.
  CalibrationResult result() const;

private:
  nlohmann::json base_;
  std::vector<MeasurementFile> files_;
  CalibrateOptions opt_;
  Config cfg_;
  Measurements m_;
  std::size_t next_ = 0;
  double budget_;
  std::optional<CalibrationSteps> fit_;
  std::optional<std::pair<std::string, std::string>> error_; // (path, message)
};

// The fitted values as configuration overrides, one dotted path each
// ({"hardware.gemm_efficiency": 0.81, "cluster.intra_node.latency": 3.1e-06, ...}).
nlohmann::json calibrated_overrides(const CalibrationResult &r);
// `config` with the overrides applied: a preset name becomes {"base": name, ...fields}, an
// object gets the fields merged in. What the page's Apply does and what a URL then carries.
nlohmann::json apply_overrides(nlohmann::json config, const nlohmann::json &overrides);
// The presets `ridgeline calibrate --out DIR` writes: {"hardware": {...}, "cluster": {...}},
// each {"base": <the base preset>, "name": <name>, fitted fields, "source"} (a base given as an
// object is written whole with the fields merged).
nlohmann::json calibrated_presets(const nlohmann::json &base_config, const CalibrationResult &r,
                                  const std::string &name, const std::string &source);

nlohmann::json to_json(const FittedParameter &p);
nlohmann::json to_json(const CalibrationResult &r);

} // namespace rl::io
