#include "core/serve/lora.hpp"

#include "core/model/params.hpp"

#include <cmath>

namespace rl {

double lora_layer_width(const ModelSpec &m, bool moe_layer) {
  const double h = static_cast<double>(m.hidden);
  const double q = static_cast<double>(m.heads * m.head_dim),
               kv = static_cast<double>(m.kv_heads * m.head_dim);
  double w = (h + q) + 2 * (h + kv) + (q + h); // q, k, v, o
  if (!moe_layer) {
    const double f = static_cast<double>(m.ffn);
    w += m.gated_mlp ? 3 * (h + f) : 2 * (h + f); // gate, up, down (or up, down)
  }
  return w;
}

double lora_adapter_bytes(const ModelSpec &m, i64 rank) {
  double width = 0;
  for (i64 i = 0; i < m.layers; ++i)
    width += lora_layer_width(m, is_moe_layer(m, i));
  return width * static_cast<double>(rank) * 2; // bf16
}

std::vector<double> lora_popularity(i64 n, double s) {
  std::vector<double> cdf(static_cast<std::size_t>(std::max<i64>(n, 1)));
  double sum = 0;
  for (std::size_t i = 0; i < cdf.size(); ++i)
    cdf[i] = sum += std::pow(static_cast<double>(i + 1), -s);
  for (double &x : cdf)
    x /= sum;
  return cdf;
}

} // namespace rl
