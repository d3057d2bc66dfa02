#include "core/calibrate/measurements.hpp"

namespace rl {

void Measurements::append(const Measurements &o) {
  const std::size_t s0 = serving.size(), t0 = training.size(), l0 = layers.size();
  components.insert(components.end(), o.components.begin(), o.components.end());
  serving.insert(serving.end(), o.serving.begin(), o.serving.end());
  training.insert(training.end(), o.training.begin(), o.training.end());
  layers.insert(layers.end(), o.layers.begin(), o.layers.end());
  kernels.insert(kernels.end(), o.kernels.begin(), o.kernels.end());
  files.insert(files.end(), o.files.begin(), o.files.end());
  if (o.files.size() != 1)
    return;
  for (std::size_t i = s0; i < serving.size(); ++i)
    if (serving[i].file.empty())
      serving[i].file = o.files[0];
  for (std::size_t i = t0; i < training.size(); ++i)
    if (training[i].file.empty())
      training[i].file = o.files[0];
  for (std::size_t i = l0; i < layers.size(); ++i)
    if (layers[i].file.empty())
      layers[i].file = o.files[0];
}

bool is_large_gemm(const KernelTiming &t) {
  return t.kind == KernelTiming::Kind::gemm && t.m >= 4096 && t.n >= 4096 && t.k >= 4096;
}

} // namespace rl
