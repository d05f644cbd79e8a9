// Chapter 42
// Gathers the chapter's evidence: blocks, bits, FLOPs, the roofline, sum orders.
#include "evidence.hpp"

#include <algorithm>
#include <cmath>
#include <cstring>

#include <llmfs/core/splitmix64.hpp>

namespace ch42 {

using llmfs::tensor::MatmulOptions;
using llmfs::tensor::MatmulPath;
using llmfs::tensor::Shape;
using llmfs::tensor::Tensor;
using llmfs::tensor::Transpose;

namespace {

std::size_t ceil_div(std::size_t a, std::size_t b) {
  return (a + b - 1) / b;
}

// A [rows, cols] matrix of values uniform in [−1, 1) from chapter 6's generator.
[[nodiscard]] Step<Tensor> random_matrix(std::size_t rows, std::size_t cols,
                                         std::uint64_t seed) {
  llmfs::SplitMix64 rng(seed);
  std::vector<double> v(rows * cols);
  for (double& x : v)
    x = 2.0 * rng.next_unit() - 1.0;
  return LLMFS_TRY_AT("random matrix", Tensor::from(Shape{rows, cols}, std::move(v)));
}

// The test's own transpose of a [rows, cols] matrix, written out by index.
Tensor transposed(const Tensor& t) {
  const std::size_t rows = t.shape()[0], cols = t.shape()[1];
  Tensor out = Tensor::zeros(Shape{cols, rows});
  for (std::size_t i = 0; i < rows; ++i)
    for (std::size_t j = 0; j < cols; ++j)
      out.mutable_values()[j * rows + i] = t.values()[i * cols + j];
  return out;
}

}  // namespace

// The tiles of one k-block cover c in ⌈n/mr⌉ × ⌈m/nr⌉ tiles; each runs once per
// k-block. A tile is an edge tile when it reaches past the last row or column of c.
Cut cut(const MatmulBlocking& b, const Product& p) {
  Cut c;
  c.row_tiles = ceil_div(p.n, b.mr);
  c.col_tiles = ceil_div(p.m, b.nr);
  c.k_blocks = ceil_div(p.k, b.kc);
  c.tile_calls = c.row_tiles * c.col_tiles * c.k_blocks;
  const std::size_t full = (p.n / b.mr) * (p.m / b.nr);
  c.edge_calls = (c.row_tiles * c.col_tiles - full) * c.k_blocks;
  return c;
}

// region: check-bits
// The default path on one and two threads, the portable path, and both transposed reads
// (aᵀ stored, bᵀ stored), each against the teaching loop, compared bit for bit.
Step<BitCheck> check_bits(const Product& p) {
  const Tensor a = LLMFS_TRY(random_matrix(p.n, p.k, 42 + p.n));
  const Tensor b = LLMFS_TRY(random_matrix(p.k, p.m, 4242 + p.m));
  const Tensor teaching =
      LLMFS_TRY_AT("teaching", llmfs::tensor::matmul(a, b, {MatmulPath::teaching, 1}));
  const MatmulPath fast = llmfs::tensor::matmul_defaults().path;
  std::vector<Tensor> results;
  for (const MatmulOptions& o : {MatmulOptions{fast, 1}, MatmulOptions{fast, 2, 0.0},
                                 MatmulOptions{MatmulPath::portable, 1}})
    results.push_back(LLMFS_TRY_AT("fast", llmfs::tensor::matmul(a, b, o)));
  results.push_back(
      LLMFS_TRY_AT("aᵀ·b", llmfs::tensor::matmul_transposed(
                               transposed(a), Transpose::yes, b, Transpose::no)));
  results.push_back(
      LLMFS_TRY_AT("a·bᵀ", llmfs::tensor::matmul_transposed(
                               a, Transpose::no, transposed(b), Transpose::yes)));
  BitCheck check{p, results.size(), 0};
  for (const Tensor& r : results)
    check.equal += bitwise_equal(r, teaching) ? 1 : 0;
  return check;
}
// endregion: check-bits

// Multiply-adds of the four projections (8·B·T·d²), the scores Q·Kᵀ and the mix A·V
// (2·B·h·T²·d_h each, h·d_h = d): two FLOPs per term.
double attention_forward_flops(const AttentionShape& s) {
  const double B = double(s.batch), T = double(s.tokens), d = double(s.width);
  return 8.0 * B * T * d * d + 4.0 * B * T * T * d;
}

// A term without FMA is one multiply and one add, 2·lanes FLOPs per vector pair; an FMA
// is the same 2·lanes FLOPs in one operation. The tile loads mr + nr doubles per p for
// 2·mr·nr FLOPs; a whole product reads a and b and writes c once at best: n/12
// flop/byte.
Roofline roofline(const Machine& m, const MatmulBlocking& b) {
  Roofline r;
  r.peak_mul_add = m.clock_ghz * m.mul_add_pairs_per_cycle * m.lanes * 2.0;
  r.peak_fma = m.clock_ghz * m.fma_per_cycle * m.lanes * 2.0;
  r.tile_intensity = 2.0 * double(b.mr * b.nr) / (8.0 * double(b.mr + b.nr));
  r.ridge = r.peak_mul_add / m.dram_gb_per_s;
  r.intensity_1024 = 1024.0 / 12.0;
  r.attainable_1024 = std::min(r.peak_mul_add, r.intensity_1024 * m.dram_gb_per_s);
  return r;
}

// region: fma-order
// The same terms in the same order with one rounding per term (std::fma), and the
// teaching order split in two halves added at the end: both change bits the fast path
// keeps.
Step<OrderCheck> check_orders() {
  const std::size_t n = 97, k = 257, m = 65;
  const Tensor a = LLMFS_TRY(random_matrix(n, k, 7)),
               b = LLMFS_TRY(random_matrix(k, m, 8));
  const Tensor teaching =
      LLMFS_TRY_AT("teaching", llmfs::tensor::matmul(a, b, {MatmulPath::teaching, 1}));
  const Tensor fast = LLMFS_TRY_AT("fast", llmfs::tensor::matmul(a, b));
  const auto av = a.values(), bv = b.values();
  OrderCheck o{n * m, 0, 0, 0, 0.0};
  for (std::size_t i = 0; i < n; ++i)
    for (std::size_t j = 0; j < m; ++j) {
      double fused = 0.0, low = 0.0, high = 0.0;
      for (std::size_t p = 0; p < k; ++p) {
        fused = std::fma(av[i * k + p], bv[p * m + j], fused);
        (p < k / 2 ? low : high) += av[i * k + p] * bv[p * m + j];
      }
      const double t = teaching.values()[i * m + j];
      o.fma_differs += fused != t ? 1 : 0;
      o.split_differs += low + high != t ? 1 : 0;
      o.fast_differs += std::memcmp(&fast.values()[i * m + j], &t, sizeof t) != 0;
      o.fma_max_relative =
          std::max(o.fma_max_relative, std::fabs(fused - t) / std::fabs(t));
    }
  return o;
}
// endregion: fma-order

// region: exercises
Step<Exercises> solve_exercises() {
  Exercises x;
  const MatmulBlocking avx2 = llmfs::tensor::matmul_blocking(MatmulPath::avx2);
  const MatmulBlocking avx512 = llmfs::tensor::matmul_blocking(MatmulPath::avx512f);
  // 1: mr·vectors accumulators, the vectors of b's row, one broadcast of a.
  x.avx2_registers = avx2.mr * avx2.vectors + avx2.vectors + 1;
  x.avx512_registers = avx512.mr * avx512.vectors + avx512.vectors + 1;
  x.square_1024 = cut(avx2, {1024, 1024, 1024});                       // 2
  x.attention_forward_flops = attention_forward_flops(kAttention[0]);  // 3
  const Roofline r = roofline(kZen3, avx2);                            // 4
  x.smallest_compute_bound_n = std::size_t(std::ceil(12.0 * r.ridge));
  return x;
}
// endregion: exercises

Step<Evidence> gather() {
  Evidence e;
  for (const MatmulPath p :
       {MatmulPath::portable, MatmulPath::avx2, MatmulPath::avx512f})
    e.blockings.emplace_back(std::string(llmfs::tensor::matmul_path_name(p)),
                             llmfs::tensor::matmul_blocking(p));
  const MatmulBlocking avx512 = e.blockings.back().second;
  e.predict = cut(avx512, kPredict);
  for (const Product& p : kChecked)
    e.checks.push_back(LLMFS_TRY(check_bits(p)));
  e.predict_equal = e.checks[1].equal == e.checks[1].compared;
  for (const double n : {1024.0, 2048.0})
    e.square_flops.push_back(2.0 * n * n * n);
  for (const AttentionShape& s : kAttention)
    e.attention_flops.push_back(attention_forward_flops(s));
  e.roofline = roofline(kZen3, llmfs::tensor::matmul_blocking(MatmulPath::avx2));
  e.roofline_skylake_x = roofline(kSkylakeX, avx512);
  e.order = LLMFS_TRY(check_orders());
  e.exercises = LLMFS_TRY(solve_exercises());
  return e;
}

}  // namespace ch42
