// ridgeline schema: the names of every enum of the configuration, once. The parser reads a
// choice by these names (an unknown one is refused with the list), the printer writes them,
// the page's combos list them in this order, and `ridgeline fields` shows them.
#pragma once

#include "core/config.hpp"

#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace rl::schema {

struct ChoiceName {
  const char *name;
  int value;
  // Another name the parser accepts for a value listed before it under its own name (lists,
  // combos and the printer use that one).
  bool alias = false;
};
using ChoiceList = std::vector<ChoiceName>;

// The names of E's values, in the order a list shows them.
template <class E> const ChoiceList &choices();
template <> const ChoiceList &choices<Mode>();
template <> const ChoiceList &choices<Dtype>();
template <> const ChoiceList &choices<CpKind>();
template <> const ChoiceList &choices<Recompute>();
template <> const ChoiceList &choices<PpSchedule>();
template <> const ChoiceList &choices<SpKind>();
template <> const ChoiceList &choices<Norm>();
template <> const ChoiceList &choices<HardwareKind>();
template <> const ChoiceList &choices<Topology>();
template <> const ChoiceList &choices<ModelFamily>();
template <> const ChoiceList &choices<ServingBound>();
template <> const ChoiceList &choices<Fp8Recipe>();
template <> const ChoiceList &choices<Framework>();
template <> const ChoiceList &choices<KvSharding>();
template <> const ChoiceList &choices<LengthDist>();
template <> const ChoiceList &choices<SchedulerPolicy>();
template <> const ChoiceList &choices<Routing>();
template <> const ChoiceList &choices<EngineSpec::KvMemory>();
template <> const ChoiceList &choices<FinetuneMethod>();
template <> const ChoiceList &choices<BaseDtype>();
template <> const ChoiceList &choices<SpecMethod>();

// The name of value v in a list ("?" when it has none).
const char *name_in(const ChoiceList &list, int v);
// The value of a name (nullopt when the list has no such name).
std::optional<int> value_in(const ChoiceList &list, std::string_view name);
// "a, b, c": the names (aliases left out), for error messages.
std::string names_text(const ChoiceList &list);
std::vector<std::string> names(const ChoiceList &list);

template <class E> const char *choice_name(E v) {
  return name_in(choices<E>(), static_cast<int>(v));
}

} // namespace rl::schema
