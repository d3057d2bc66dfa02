#include "core/io/schema_json.hpp"

#include "core/io/config_json.hpp"

namespace rl::io {

namespace {
const char *type_name(schema::FieldType t) {
  switch (t) {
  case schema::FieldType::number:
    return "number";
  case schema::FieldType::integer:
    return "integer";
  case schema::FieldType::boolean:
    return "boolean";
  case schema::FieldType::choice:
    return "choice";
  }
  return "?";
}

json modes_json(schema::Modes m) {
  json out = json::array(); // in Mode order, by the parser's own names
  for (unsigned i = 0; (schema::kAllModes >> i) != 0; ++i)
    if (m & (1u << i))
      out.push_back(name_of(static_cast<Mode>(i)));
  return out;
}
} // namespace

json fields_json() {
  json out = json::array();
  for (const schema::FieldEntry &e : schema::all_fields()) {
    json f = {{"path", e.section + "." + e.info.path()},
              {"type", *e.type ? e.type : type_name(e.info.type)},
              {"unit", e.info.unit},
              {"help", e.info.help},
              {"modes", modes_json(e.info.modes)}};
    if ((e.info.type == schema::FieldType::number || e.info.type == schema::FieldType::integer) &&
        e.info.lo < e.info.hi) {
      f["min"] = e.info.lo;
      f["max"] = e.info.hi;
    }
    if (e.info.choices)
      f["choices"] = schema::names(*e.info.choices);
    if (*e.info.vllm)
      f["vllm"] = e.info.vllm; // the engine argument `ridgeline export --format vllm` writes
    if (e.section == "parallel")
      f["default"] = "absent (see help)"; // the planner's choice, or one that follows another
    else if (e.info.omit_zero && !e.info.custom)
      f["default"] = "absent"; // 0 means not given
    else if (e.info.custom)
      f["default"] = "see help"; // required, or derived from another field
    else if (e.info.type == schema::FieldType::boolean)
      f["default"] = e.default_value != 0;
    else if (e.info.choices)
      f["default"] = schema::name_in(*e.info.choices, static_cast<int>(e.default_value));
    else
      f["default"] = e.default_value;
    out.push_back(f);
  }
  return out;
}

} // namespace rl::io
