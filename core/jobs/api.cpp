#include "core/jobs/api.hpp"

#include "core/jobs/export.hpp"
#include "core/jobs/plan.hpp"
#include "core/jobs/run.hpp"

#include "core/error.hpp"
#include "core/estimate/estimate.hpp"
#include "core/io/calibration_json.hpp"
#include "core/io/config_json.hpp"
#include "core/io/estimate_json.hpp"
#include "core/io/json_reader.hpp"
#include "core/io/presets.hpp"
#include "core/io/serve_json.hpp"
#include "core/io/tx8_json.hpp"
#include "core/io/url_codec.hpp"
#include "core/planner/planner.hpp"
#include "core/tx8/request.hpp"

#include <new>
#include <variant>

namespace rl::api {

using nlohmann::json;

namespace {
// Runs f, turning every expected failure into {"error": {...}}.
template <class F> std::string guarded(F &&f) {
  try {
    return io::dump(f());
  } catch (const ConfigError &e) {
    return io::dump(io::error_json(e.path(), e.message()));
  } catch (const json::exception &e) {
    return io::dump(io::error_json("", "internal error: " + io::plain_json_message(e.what())));
  } catch (const std::bad_alloc &) {
    return io::dump(io::error_json("", "out of memory: the input asks for too much work"));
  } catch (const std::exception &e) {
    return io::dump(io::error_json("", std::string("internal error: ") + e.what()));
  } catch (...) {
    return io::dump(io::error_json("", "internal error"));
  }
}
} // namespace

std::string estimate(const std::string &config_json) {
  return guarded([&] {
    const Config c = io::parse_config(io::parse_json_text(config_json));
    return io::to_json(rl::estimate(c));
  });
}

std::string calibrate(const std::string &request_json) {
  return guarded([&] {
    const json j = io::parse_json_text(request_json);
    io::ObjectReader r(j, "");
    const json *base = r.opt_child("base");
    if (!base)
      throw ConfigError("base", "is required");
    const json *fs = r.opt_child("files");
    if (!fs || !fs->is_array())
      throw ConfigError("files", "expected an array of {\"name\", \"text\"}");
    std::vector<io::MeasurementFile> files;
    for (std::size_t i = 0; i < fs->size(); ++i) {
      io::ObjectReader f((*fs)[i], "files[" + std::to_string(i) + "]");
      io::MeasurementFile m;
      m.name = f.opt_str("name").value_or("file " + std::to_string(i + 1));
      const auto text = f.opt_str("text");
      if (!text)
        throw ConfigError(f.path_of("text"), "is required");
      m.text = *text;
      f.finish();
      files.push_back(std::move(m));
    }
    r.finish();
    const CalibrationResult res = io::calibrate_files(*base, files);
    json out = io::to_json(res);
    out["config"] = io::apply_overrides(*base, out["overrides"]);
    return out;
  });
}

std::string plan(const std::string &config_json, int top, const std::string &free) {
  return guarded([&] {
    PlanOptions o;
    o.top = top;
    return std::visit([](const auto &r) { return io::to_json(r); },
                      jobs::run_plan(io::parse_json_text(config_json), free, o));
  });
}

std::string export_launch(const std::string &config_json, const std::string &format) {
  return guarded([&] {
    const jobs::ExportText t =
        jobs::export_launch(io::parse_config(io::parse_json_text(config_json)), format);
    return json{{"format", format}, {"text", t.all()}};
  });
}

std::string tx8(const std::string &config_json, bool presets) {
  return guarded([&] {
    const Config c = io::parse_config(io::parse_json_text(config_json));
    tx8::Tx8Options o;
    o.compare_presets = presets;
    return io::to_json(tx8::solve(c, o));
  });
}

std::string sweep(const std::string &config_json) {
  return guarded([&] {
    const Config c = io::parse_config(io::parse_json_text(config_json));
    if (c.workload.mode != Mode::infer)
      throw ConfigError("workload.mode", "the batch sweep needs an inference workload");
    return io::to_json(decode_curve(c, rl::estimate(c)));
  });
}

std::string serve(const std::string &config_json) {
  return guarded([&] {
    const Config c = io::parse_config(io::parse_json_text(config_json));
    if (jobs::run_kind(c.workload.mode) != jobs::RunKind::serve)
      throw ConfigError("workload.mode", "serving needs a serve workload");
    return io::to_json(*jobs::run(c).serve);
  });
}

std::string serve_sweep(const std::string &config_json) {
  return guarded([&] {
    const Config c = io::parse_config(io::parse_json_text(config_json));
    if (c.workload.mode != Mode::serve)
      throw ConfigError("workload.mode", "the rate sweep needs a serve workload");
    return json{{"sweep", io::to_json(load_sweep(c))}};
  });
}

std::string resolve(const std::string &config_json) {
  return guarded([&] { return io::to_json(io::parse_config(io::parse_json_text(config_json))); });
}

std::string encode_url(const std::string &config_json) {
  return guarded([&] {
    const json j = io::parse_json_text(config_json);
    io::parse_config(j); // only valid configurations get a URL
    return json(io::encode_url_query(j));
  });
}

std::string decode_url(const std::string &url) {
  return guarded([&] {
    const json j = io::decode_url_query(url);
    io::parse_config(j);
    return j;
  });
}

std::string presets() {
  return guarded([&] {
    json j = json::object();
    for (const char *kind : {"model", "hardware", "cluster", "scenario"})
      j[kind] = io::preset_names(kind);
    return j;
  });
}

std::string preset(const std::string &kind, const std::string &name) {
  return guarded([&] { return io::preset_json(kind, name, kind); });
}

} // namespace rl::api
