// the DSP paper's (Zhao et al. 2024) comparison of parallelisms, and the per-layer volumes behind
// it.
#include "helpers.hpp"

#include "core/comm/volumes.hpp"
#include "core/memory/activations.hpp"
#include "core/parallel/sp_compare.hpp"

using namespace rl;

TEST_CASE("Collective volumes per device (docs/formulas.md, Shoeybi et al. 2019, Korthikanti et "
          "al. 2022)",
          "[comm]") {
  // ring AllReduce 2M(N-1)/N per device, 2M(N-1) in total
  CHECK(ring_allreduce_bytes(1000, 8) == Approx(2 * 1000.0 * 7 / 8));
  CHECK(8 * ring_allreduce_bytes(1000, 8) == Approx(2 * 1000.0 * 7));
  CHECK(allgather_bytes(1000, 4) == Approx(750));
  CHECK(alltoall_pairwise_bytes(1000, 4) == Approx(750));
  // Bruck, P = 2^j: M/2 log2 P per device, M P log2(P)/2 in total (Bruck et al. 1997)
  CHECK(alltoall_bruck_bytes(1024, 16) == Approx(1024.0 / 2 * 4));
  CHECK(ring_allreduce_bytes(1000, 1) == 0);
}

TEST_CASE("Korthikanti et al. 2022 per-layer activation traffic", "[comm]") {
  const double b = 2, s = 4096;
  const i64 h = 4096, a = 32, n = 8;
  const SeqShape x{b, s, h, a, a, h / a};
  const double bsh = b * s * static_cast<double>(h), alpha = 7.0 / 8;
  // TP: 8 alpha bsh bytes per pass (Korthikanti et al. 2022), forward + backward
  CHECK(tp_layer_bytes(x, n) == Approx(2 * 8 * alpha * bsh));
  // Megatron-SP: 6 AllGather + 4 ReduceScatter of bsh elements (DSP paper table: 10 O(bsh))
  CHECK(megatron_sp_layer_bytes(x, n) == Approx(10 * 2 * alpha * bsh));
  // DS-Ulysses: 6 alpha bsh/n (QKV) + 2 alpha bsh/n (O) = 8 alpha bsh / n per pass
  CHECK(ulysses_layer_bytes(x, n) == Approx(2 * 8 * alpha * bsh / 8));
  // Ring: forward passes K and V: 4 bsh (n-1)/n bytes; backward K,V,dK,dV twice that
  CHECK(ring_layer_bytes(x, n) == Approx(3 * 4 * bsh * alpha));
  // GQA shrinks Ulysses' and Ring's K/V traffic, not Megatron-SP's
  const SeqShape g{b, s, h, a, 8, h / a};
  CHECK(ulysses_layer_bytes(g, n) < ulysses_layer_bytes(x, n));
  CHECK(ring_layer_bytes(g, n) == Approx(ring_layer_bytes(x, n) / 4));
}

TEST_CASE("DSP paper (Zhao et al. 2024) comparison table, computed", "[comm][memory]") {
  const ModelSpec m = test::gpt(24, 2048, 16, 50000);
  const double b = 1, s = 2048;
  const SpComparison c = compare_sp(m, b, s, 8);
  REQUIRE(c.rows.size() == 9);
  const double P = c.params;
  CHECK(P == Approx(24.0 * (12 * 2048.0 * 2048 + 13 * 2048)));
  const double A = layer_activations(m, false, b, s, {1, false, 1, false}).total();
  auto row = [&](const char *n) {
    for (const auto &r : c.rows)
      if (r.name == n)
        return r;
    FAIL(n);
    return SpRow{};
  };
  // P+G = 4P bytes, optimizer "6P" = 12 bytes per parameter; A/N activations
  CHECK(row("DS-SP").pg_bytes == Approx(4 * P));
  CHECK(row("DS-SP").os_bytes == Approx(12 * P));
  CHECK(row("DS-SP").act_mem == Approx(A / 8));
  CHECK(row("DP").act_mem == Approx(A / 8));
  CHECK(row("ZeRO1").os_bytes == Approx(12 * P / 8));
  CHECK(row("USP + ZeRO2").pg_bytes == Approx(2 * P + 2 * P / 8));
  CHECK(row("USP + ZeRO3").pg_bytes == Approx(4 * P / 8));
  // ZeRO-3 moves 1.5x DP's gradient AllReduce (18 vs 12 O(h^2) in the DSP paper's table)
  CHECK(row("USP + ZeRO3").param_bytes == Approx(1.5 * row("DP").param_bytes));
  CHECK(row("ZeRO1").param_bytes == Approx(row("DP").param_bytes));
  // TP keeps the alpha A activations; Megatron-SP divides everything
  const double sbh = s * b * 2048, as_h = 16 * s / 2048;
  CHECK(row("TP").act_mem == Approx(sbh * (10 + 24.0 / 8 + 5 * as_h / 8)));
  CHECK(row("Megatron-SP").act_mem == Approx(A / 8));
  CHECK(row("TP").param_bytes == 0);
  // Megatron-SP's traffic does not fall with N; DS-SP's does (the DSP paper's analysis, Zhao et al.
  // 2024)
  CHECK(compare_sp(m, b, s, 16).rows[8].act_bytes > row("Megatron-SP").act_bytes);
  CHECK(compare_sp(m, b, s, 16).rows[0].act_bytes < row("DS-SP").act_bytes);
  // USP = Ulysses over all 8 here (8 divides 16 heads): same as DS-SP
  CHECK(c.ulysses == 8);
  CHECK(row("USP + ZeRO1").act_bytes == Approx(row("DS-SP").act_bytes));
}
