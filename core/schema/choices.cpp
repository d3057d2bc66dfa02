#include "core/schema/choices.hpp"

namespace rl::schema {

namespace {
template <class E> ChoiceList list(std::initializer_list<std::pair<const char *, E>> items) {
  ChoiceList out;
  for (const auto &[n, v] : items)
    out.push_back({n, static_cast<int>(v)});
  return out;
}
} // namespace

template <> const ChoiceList &choices<Mode>() {
  static const ChoiceList l = list<Mode>({{"train", Mode::train},
                                          {"infer", Mode::infer},
                                          {"tx8-op", Mode::tx8_op},
                                          {"video", Mode::video},
                                          {"serve", Mode::serve}});
  return l;
}
template <> const ChoiceList &choices<Dtype>() {
  static const ChoiceList l = list<Dtype>({{"fp32", Dtype::fp32},
                                           {"bf16", Dtype::bf16},
                                           {"fp16", Dtype::fp16},
                                           {"fp8", Dtype::fp8},
                                           {"int8", Dtype::int8},
                                           {"int4", Dtype::int4},
                                           {"fp4", Dtype::nvfp4}, // SPEC.md: fp4 is NVFP4
                                           {"mxfp4", Dtype::mxfp4},
                                           {"mxfp8", Dtype::mxfp8}});
  static const ChoiceList with_alias = [] {
    ChoiceList a = l;
    a.push_back({"nvfp4", static_cast<int>(Dtype::nvfp4), true}); // NVIDIA's (and vLLM's) name
    return a;
  }();
  return with_alias;
}
template <> const ChoiceList &choices<CpKind>() {
  static const ChoiceList l =
      list<CpKind>({{"ring", CpKind::ring}, {"ulysses", CpKind::ulysses}, {"usp", CpKind::usp}});
  return l;
}
template <> const ChoiceList &choices<Recompute>() {
  static const ChoiceList l = list<Recompute>(
      {{"none", Recompute::none}, {"selective", Recompute::selective}, {"full", Recompute::full}});
  return l;
}
template <> const ChoiceList &choices<PpSchedule>() {
  static const ChoiceList l = list<PpSchedule>({{"1f1b", PpSchedule::one_f_one_b},
                                                {"interleaved", PpSchedule::interleaved},
                                                {"gpipe", PpSchedule::gpipe},
                                                {"dualpipe", PpSchedule::dualpipe},
                                                {"dualpipev", PpSchedule::dualpipev}});
  return l;
}
template <> const ChoiceList &choices<SpKind>() {
  static const ChoiceList l = list<SpKind>({{"dsp", SpKind::dsp},
                                            {"ulysses", SpKind::ulysses},
                                            {"ring", SpKind::ring},
                                            {"megatron-sp", SpKind::megatron_sp},
                                            {"usp", SpKind::usp}});
  return l;
}
template <> const ChoiceList &choices<Norm>() {
  static const ChoiceList l =
      list<Norm>({{"rmsnorm", Norm::rmsnorm}, {"layernorm", Norm::layernorm}});
  return l;
}
template <> const ChoiceList &choices<HardwareKind>() {
  static const ChoiceList l = list<HardwareKind>(
      {{"gpu", HardwareKind::gpu}, {"tpu", HardwareKind::tpu}, {"tx8", HardwareKind::tx8}});
  return l;
}
template <> const ChoiceList &choices<Topology>() {
  static const ChoiceList l = list<Topology>(
      {{"switched", Topology::switched}, {"torus", Topology::torus}, {"mesh", Topology::mesh}});
  return l;
}
template <> const ChoiceList &choices<ModelFamily>() {
  static const ChoiceList l =
      list<ModelFamily>({{"decoder", ModelFamily::decoder}, {"stdit3", ModelFamily::stdit3}});
  return l;
}
template <> const ChoiceList &choices<ServingBound>() {
  static const ChoiceList l = list<ServingBound>(
      {{"achievable", ServingBound::achievable}, {"roofline", ServingBound::roofline}});
  return l;
}
template <> const ChoiceList &choices<Fp8Recipe>() {
  static const ChoiceList l = list<Fp8Recipe>({{"delayed", Fp8Recipe::delayed},
                                               {"tensorwise", Fp8Recipe::tensorwise},
                                               {"blockwise", Fp8Recipe::blockwise}});
  return l;
}
template <> const ChoiceList &choices<Framework>() {
  static const ChoiceList l = list<Framework>({{"any", Framework::any},
                                               {"megatron", Framework::megatron},
                                               {"deepspeed", Framework::deepspeed},
                                               {"torchtitan", Framework::torchtitan},
                                               {"torchtune", Framework::torchtune},
                                               {"vllm", Framework::vllm},
                                               {"sglang", Framework::sglang},
                                               {"trtllm", Framework::trtllm}});
  return l;
}
template <> const ChoiceList &choices<KvSharding>() {
  static const ChoiceList l =
      list<KvSharding>({{"replicate", KvSharding::replicate}, {"batch", KvSharding::batch}});
  return l;
}
template <> const ChoiceList &choices<LengthDist>() {
  static const ChoiceList l = list<LengthDist>({{"fixed", LengthDist::fixed},
                                                {"exponential", LengthDist::exponential},
                                                {"uniform", LengthDist::uniform}});
  return l;
}
template <> const ChoiceList &choices<Routing>() {
  static const ChoiceList l = list<Routing>({{"none", Routing::none},
                                             {"round_robin", Routing::round_robin},
                                             {"least_loaded", Routing::least_loaded},
                                             {"prefix_aware", Routing::prefix_aware}});
  return l;
}

template <> const ChoiceList &choices<SchedulerPolicy>() {
  static const ChoiceList l = list<SchedulerPolicy>(
      {{"continuous", SchedulerPolicy::continuous}, {"static", SchedulerPolicy::static_batch}});
  return l;
}

template <> const ChoiceList &choices<EngineSpec::KvMemory>() {
  static const ChoiceList l =
      list<EngineSpec::KvMemory>({{"hbm", EngineSpec::KvMemory::hbm},
                                  {"static", EngineSpec::KvMemory::static_pool},
                                  {"free", EngineSpec::KvMemory::free}});
  return l;
}

template <> const ChoiceList &choices<FinetuneMethod>() {
  static const ChoiceList l = list<FinetuneMethod>({{"full", FinetuneMethod::full},
                                                    {"lora", FinetuneMethod::lora},
                                                    {"qlora", FinetuneMethod::qlora}});
  return l;
}

template <> const ChoiceList &choices<SpecMethod>() {
  static const ChoiceList l = list<SpecMethod>(
      {{"mtp", SpecMethod::mtp}, {"eagle", SpecMethod::eagle}, {"draft", SpecMethod::draft}});
  return l;
}

template <> const ChoiceList &choices<BaseDtype>() {
  static const ChoiceList l = list<BaseDtype>(
      {{"bf16", BaseDtype::bf16}, {"fp8", BaseDtype::fp8}, {"nf4", BaseDtype::nf4}});
  return l;
}

const char *name_in(const ChoiceList &list, int v) {
  for (const ChoiceName &c : list)
    if (c.value == v && !c.alias)
      return c.name;
  return "?";
}

std::optional<int> value_in(const ChoiceList &list, std::string_view name) {
  for (const ChoiceName &c : list)
    if (name == c.name)
      return c.value;
  return std::nullopt;
}

std::string names_text(const ChoiceList &list) {
  std::string out;
  for (const ChoiceName &c : list) {
    if (c.alias)
      continue;
    if (!out.empty())
      out += ", ";
    out += c.name;
  }
  return out;
}

std::vector<std::string> names(const ChoiceList &list) {
  std::vector<std::string> out;
  for (const ChoiceName &c : list)
    if (!c.alias)
      out.emplace_back(c.name);
  return out;
}

} // namespace rl::schema
