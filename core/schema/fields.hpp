// ridgeline schema: the configuration's plain fields, one table per object, each field once
// with its JSON key, type, accepted range, unit, default (the struct's), page label and display
// scale, help text and the workload modes it applies to. The parser and the printer
// (core/io/schema_json), the page's input panel (web/panels_inputs), the CLI's field list
// (`ridgeline fields`) and the URL codec (generic over the JSON) are all driven from these
// tables, in the way Dear ImGui's demo drives its widgets from member tables: a new field is
// one row here.
//
// "Plain" means read as `value = optional key in [lo, hi], else the default`. Fields whose
// default or presence depends on another (hbm_bytes is required for a GPU, memory_reserve
// defaults from it) are rows too, marked `custom`: the parser reads them itself, everything
// else (printing, the page, the list) still comes from the row.
#pragma once

#include "core/config.hpp"
#include "core/schema/choices.hpp"

#include <optional>
#include <string>
#include <string_view>
#include <type_traits>
#include <vector>

namespace rl::schema {

// Physical limits of the accepted ranges: beyond these a value is a typo, not a machine.
constexpr i64 kMaxLayers = 100000;
constexpr i64 kMaxDim = i64{1} << 24;       // hidden, ffn, vocab, head sizes
constexpr i64 kMaxCount = i64{1} << 30;     // devices, batch, tokens
constexpr double kMaxFlops = 1e18;          // FLOP/s per device
constexpr double kMaxBytes = 1e15;          // bytes per device
constexpr double kMaxBw = 1e15;             // bytes/s
constexpr double kMaxLatency = 1.0;         // s
constexpr double kMinLinkEfficiency = 0.05; // a link's busbw / line rate at least
constexpr double kMinFlops = 1e6;           // FLOP/s (a peak of 0 means "not supported")
constexpr double kMinBw = 1e6;              // bytes/s
constexpr double kMinBytes = 1e6;           // bytes of device memory
constexpr double kMaxUncertainty = 0.5;     // relative band: lower bound t*(1-u) stays > 0
// An engine's TPOT / TTFT band (above the prediction: a latency band keeps no lower bound)
constexpr double kMaxEngineUncertainty = 100;

// choice: one of named values (an enum, by the names of core/schema/choices).
enum class FieldType { number, integer, boolean, choice };

// Workload modes a field applies to (bit i: Mode i).
using Modes = unsigned;
constexpr Modes mode_bit(Mode m) {
  return 1u << static_cast<unsigned>(m);
}
constexpr Modes kAllModes = 0x1f;
constexpr Modes kGpuModes = mode_bit(Mode::train) | mode_bit(Mode::infer) | mode_bit(Mode::serve);
constexpr Modes kServingModes = mode_bit(Mode::infer) | mode_bit(Mode::serve);

struct FieldInfo {
  const char *object; // the JSON object below its section: "", "tx8", "scheduler", "slo"
  const char *key;    // the key in that object
  FieldType type = FieldType::number;
  double lo = 0, hi = 0;   // accepted range, inclusive
  const char *unit = "";   // of the JSON value: "B", "B/s", "s", "FLOP/s", "" (a plain number)
  const char *label = "";  // the page's row label
  double scale = 1;        // the page shows value x scale ...
  const char *format = ""; // ... in this printf format ("" for integers and booleans)
  const char *help = "";   // tooltip and `ridgeline fields`; names its public source
  const char *group = "";  // page: the set of rows it is drawn with ("": the section's own;
                           // named sets are placed by the page, some folded under the name)
  Modes modes = kAllModes;
  bool custom = false;    // the parser reads it itself (required, or a derived default)
  const char *vllm = "";  // the vLLM engine argument it exports to (`ridgeline export`), if any
  i64 step = 0;           // page: the +/- step of an integer (0: none)
  bool omit_zero = false; // printed only when not 0, false or a choice's first ("not given")
  const ChoiceList *choices = nullptr; // a choice's names (set by the table's builder)
  // page: drawn only while another field of the same section holds one of some values,
  // "key=a|b" (the parser refuses the field otherwise, with its own reason); "": always.
  const char *shown_with = "";
  // The path below its section: "tx8.noc_bw" (object.key) or "gemm_efficiency" (key).
  std::string path() const;
};

// A row bound to a member of S (exactly one pointer is set, matching info.type; a choice is
// read and written as its value's int through get / set).
template <class S> struct Field {
  FieldInfo info;
  double S::*num = nullptr;
  i64 S::*integer = nullptr;
  bool S::*flag = nullptr;
  int (*get)(const S &) = nullptr;
  void (*set)(S &, int) = nullptr;
};

// A row of an object whose members are optional (the layout: absent means the planner
// chooses). integer / flag point at the member for integer and boolean rows, get / set
// reach a choice's value (get only when has); has / reset work on every row, whatever its
// type (the knob registry frees knobs with them).
template <class S> struct OptField {
  FieldInfo info;
  std::optional<i64> S::*integer = nullptr;
  std::optional<bool> S::*flag = nullptr;
  bool (*has)(const S &) = nullptr;
  void (*reset)(S &) = nullptr;
  int (*get)(const S &) = nullptr;
  void (*set)(S &, int) = nullptr;
  const void *member = nullptr; // &member_tag<M> of the member it is built on
};

// One address per data member M (an inline variable: the same in every translation unit),
// by which code elsewhere names a row through its member, never through its key's spelling.
template <auto M> inline constexpr char member_tag = 0;

const std::vector<Field<ModelSpec>> &model_fields();
const std::vector<Field<MoeSpec>> &moe_fields(); // model.moe
// The workload's numbers and switches of the train and infer modes (each row says which);
// serving's are serve_fields(), the tx8 modes' their own.
const std::vector<Field<WorkloadSpec>> &workload_fields();
const std::vector<Field<HardwareSpec>> &hardware_fields();
const std::vector<Field<Tx8Spec>> &tx8_fields();              // hardware.tx8
const std::vector<Field<ServeSpec>> &serve_fields();          // workload.slo and workload.scheduler
const std::vector<Field<SessionsSpec>> &sessions_fields();    // workload.sessions
const std::vector<Field<KvOffloadSpec>> &kv_offload_fields(); // workload.scheduler.kv_offload
const std::vector<Field<LoraSpec>> &lora_fields();            // workload.lora
// workload.op of mode tx8-op: each row's group is the operator type it belongs to (gemm,
// vector, flash_attention; "" for every type). The type, the fused activation, the
// stationary operand, the loop order, the name and a fixed tiling are read by the parser.
const std::vector<Field<Tx8OpSpec>> &op_fields();
const std::vector<Field<Link>> &link_fields(); // each of cluster's links
// cluster's plain numbers: energy (host power, PUE, price), interruptions, the host's Adam.
const std::vector<Field<ClusterSpec>> &cluster_fields();
const std::vector<Field<CheckpointSpec>> &checkpoint_fields(); // workload.checkpoint
// workload.finetune: method, rank and base dtype (its targets list is read by the parser).
const std::vector<Field<FinetuneSpec>> &finetune_fields();
// workload.speculative (serve): method and draft tokens (acceptance and draft_model are read by
// the parser).
const std::vector<Field<SpeculativeSpec>> &speculative_fields();
const std::vector<OptField<ParallelSpec>> &parallel_fields();
// The parallel row of that key, nullptr when there is none.
const OptField<ParallelSpec> *parallel_field(std::string_view key);
// The parallel row built on member `member_tag` (std::logic_error when none is: a row missing
// from the table, a programming error the tests catch).
const OptField<ParallelSpec> &parallel_row(const void *member_tag);
// The row of ParallelSpec member M, and its key: parallel_key<&ParallelSpec::microbatch>()
// is "microbatch", spelled once, in the table.
template <auto M> const OptField<ParallelSpec> &parallel_row() {
  return parallel_row(&member_tag<M>);
}
template <auto M> const char *parallel_key() {
  return parallel_row<M>().info.key;
}

// The row of a plain member of S (model, workload, hardware, ...), found by its member pointer.
template <class S> const std::vector<Field<S>> &fields_of();
template <> inline const std::vector<Field<ModelSpec>> &fields_of() {
  return model_fields();
}
template <> inline const std::vector<Field<WorkloadSpec>> &fields_of() {
  return workload_fields();
}
template <> inline const std::vector<Field<HardwareSpec>> &fields_of() {
  return hardware_fields();
}
template <> inline const std::vector<Field<ClusterSpec>> &fields_of() {
  return cluster_fields();
}
[[noreturn]] void missing_row(const char *what);
template <class S, class T> const FieldInfo &row_of(T S::*m) {
  for (const Field<S> &f : fields_of<S>()) {
    if constexpr (std::is_same_v<T, i64>) {
      if (f.integer == m)
        return f.info;
    } else if constexpr (std::is_same_v<T, double>) {
      if (f.num == m)
        return f.info;
    } else {
      static_assert(std::is_same_v<T, bool>, "a plain row is a number, an integer or a flag");
      if (f.flag == m)
        return f.info;
    }
  }
  missing_row("plain");
}

// Rows the parser reads with code of its own, in shapes a plain row cannot hold: the peak
// FLOP/s object, the cluster's size and topology, the workload's mode, the model's family,
// MLA ranks and Hugging Face id, arrays. Listed (`ridgeline fields`) so that the list is every
// key the parser accepts but the metadata (name, source, notes, base, scenario); nothing
// reads or writes a value through them. `type` names a JSON type a FieldType has not
// ("string", "array"; "" for info.type).
struct ParsedField {
  const char *section;
  FieldInfo info;
  const char *type = "";
};
const std::vector<ParsedField> &parsed_fields();

// Every row with its section ("hardware", "workload", "cluster") and the default of a
// default-built struct, for `ridgeline fields` and the tests.
struct FieldEntry {
  std::string section;
  FieldInfo info;
  double default_value = 0; // booleans as 0 / 1
  const char *type = "";    // a ParsedField's JSON type ("string", "array"), else ""
};
std::vector<FieldEntry> all_fields();

} // namespace rl::schema
