// Chapter 42
#pragma once
// Chapter 42's fixed inputs: the Predict product, the shapes checked bit for bit, the
// attention shapes whose FLOPs are counted, and the stated machine numbers of the
// roofline.

#include <array>
#include <cstddef>

namespace ch42 {

/// A product `[n,k]·[k,m]`.
struct Product {
  std::size_t n, k, m;
};

// region: fixture
/// Predict: how does the AVX-512 kernel (tile 6 × 32, kc = 256) cut [7,300]·[300,33]?
inline constexpr Product kPredict{7, 300, 33};
/// The trace's product: blocks of every loop, small enough to draw.
inline constexpr Product kTraced{200, 600, 70};
/// Shapes checked bit for bit against the teaching loop: 0 and 1, primes, block edges.
inline constexpr std::array<Product, 6> kChecked{{{1, 1, 1},
                                                  {7, 300, 33},
                                                  {97, 257, 65},
                                                  {13, 1000, 29},
                                                  {128, 32, 128},
                                                  {0, 5, 3}}};
/// Multi-head attention (B, T, d_model, h), as the benchmark runs it.
struct AttentionShape {
  std::size_t batch, tokens, width, heads;
};
inline constexpr std::array<AttentionShape, 2> kAttention{
    {{4, 128, 128, 4}, {8, 256, 256, 8}}};
/// Stated machine numbers (lscpu, and the vendors' documented execution pipes): the
/// roofline is computed from these, never from a timing.
struct Machine {
  double clock_ghz;                ///< nominal clock (lscpu: BogoMIPS / 2)
  double lanes;                    ///< doubles per vector register of the kernel
  double mul_add_pairs_per_cycle;  ///< vector multiply-then-add pairs issued per cycle
  double fma_per_cycle;            ///< vector fused multiply-adds issued per cycle
  double dram_gb_per_s = 10.0;     ///< assumed memory bandwidth of one core
};
/// The benchmark's machine: AMD EPYC, Zen 3 (family 25, model 1; 4890.81 BogoMIPS),
/// AVX2 (4 doubles per ymm): vmulpd on pipes FP0 and FP1, vaddpd on FP2 and FP3, so two
/// multiplies and two adds per cycle; vfmadd231pd on FP0 and FP1, two per cycle.
inline constexpr Machine kZen3{2.45, 4, 2, 2, 10.0};
/// The first run's machine: an Intel Xeon with AVX-512F (5199.99 BogoMIPS), 8 doubles
/// per zmm: ports 0 and 5 each take one multiply, add or FMA per cycle, so a multiply
/// and an add (one pair) or two FMAs per cycle.
inline constexpr Machine kSkylakeX{2.6, 8, 1, 2, 10.0};
// endregion: fixture

}  // namespace ch42
