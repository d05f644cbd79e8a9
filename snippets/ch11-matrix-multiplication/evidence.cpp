// Chapter 11
#include "evidence.hpp"

#include <bit>
#include <cmath>
#include <set>

#include <llmfs/core/splitmix64.hpp>

namespace ch11 {

using llmfs::tensor::matmul;
using snippets::Step;

std::pair<Tensor, Tensor> random_operands() {
  // Chapter 6's generator and draw: the top 53 bits of a SplitMix64 output times 2⁻⁵³,
  // uniform in [0, 1), stretched to [−1, 1). Every standard library draws the same.
  auto uniform = [](Shape shape, std::uint64_t seed) {
    llmfs::SplitMix64 rng(seed);
    Tensor t = Tensor::zeros(std::move(shape));
    for (double& v : t.mutable_values())
      v = 2.0 * rng.next_unit() - 1.0;
    return t;
  };
  return {uniform(Shape{kRandomN, kRandomK}, 11),
          uniform(Shape{kRandomK, kRandomM}, 12)};
}

// region: triple-loop
// The definition, c[i,j] = Σ_p a[i,p]·b[p,j], as three loops: one dot product of a row
// of a with a column of b per output element, summed from 0.0 in increasing p.
Tensor naive_matmul(const Tensor& a, const Tensor& b) {
  const std::size_t n = a.shape()[0], k = a.shape()[1], m = b.shape()[1];
  Tensor c = Tensor::zeros(Shape{n, m});
  const auto av = a.values(), bv = b.values();
  for (std::size_t i = 0; i < n; ++i)
    for (std::size_t j = 0; j < m; ++j) {
      double sum = 0.0;
      for (std::size_t p = 0; p < k; ++p)
        sum += av[i * k + p] * bv[p * m + j];
      c.mutable_values()[i * m + j] = sum;
    }
  return c;
}

// 2·n·k·m per matrix pair (k multiplications and k additions per output element), times
// the number of pairs: the product of the broadcast batch axes.
double matmul_flops(const Shape& a, const Shape& b) {
  double pairs = 1.0;
  const std::size_t ra = a.rank(), rb = b.rank();
  for (std::size_t i = 3; i <= std::max(ra, rb); ++i)
    pairs *=
        static_cast<double>(std::max(i <= ra ? a[ra - i] : 1, i <= rb ? b[rb - i] : 1));
  return 2.0 * pairs * static_cast<double>(a[ra - 2] * a[ra - 1] * b[rb - 1]);
}
// endregion: triple-loop

// region: loop-orders
enum class LoopOrder { ijk, ikj };

// The two orders' loops with the arithmetic replaced by a record of the b offset read,
// for the first pass of the inner loop: i-j-k walks down a column of b (stride m),
// i-k-j along a row (stride 1).
std::vector<std::size_t> inner_loop_reads(LoopOrder order, std::size_t n, std::size_t k,
                                          std::size_t m) {
  std::vector<std::size_t> reads;
  for (std::size_t i = 0; i < n && reads.empty(); ++i) {
    if (order == LoopOrder::ijk) {
      for (std::size_t j = 0; j < m && reads.empty(); ++j)
        for (std::size_t p = 0; p < k; ++p)
          reads.push_back(p * m + j);  // b[p,j]
    } else {
      for (std::size_t p = 0; p < k && reads.empty(); ++p)
        for (std::size_t j = 0; j < m; ++j)
          reads.push_back(p * m + j);  // b[p,j]
    }
  }
  return reads;
}
// endregion: loop-orders

// region: compare-orders
// The library's kernel on a random [37,53]·[53,29] (the naive i-j-k loop gives the same
// bits: the chapter test checks it); then each sum run from p = k−1 down to 0, split in
// two halves added at the end, and with each multiply-add fused, std::fma(a, b, sum):
// one rounding per term instead of two. Counts the elements each changes.
Step<OrderChanges> changed_sums() {
  const auto [a, b] = random_operands();
  const Tensor library = LLMFS_TRY_AT("random a·b", matmul(a, b));
  OrderChanges x;
  for (std::size_t i = 0; i < kRandomN; ++i)
    for (std::size_t j = 0; j < kRandomM; ++j) {
      double backwards = 0.0, halves[2] = {0.0, 0.0}, fused = 0.0;
      for (std::size_t p = kRandomK; p-- > 0;) {
        const double term = a.values()[i * kRandomK + p] * b.values()[p * kRandomM + j];
        backwards += term;
      }
      for (std::size_t p = 0; p < kRandomK; ++p) {
        const double ap = a.values()[i * kRandomK + p],
                     bp = b.values()[p * kRandomM + j];
        halves[2 * p / kRandomK] += ap * bp;
        fused = std::fma(ap, bp, fused);
      }
      const double separate = library.values()[i * kRandomM + j];
      x.reversed_differ += backwards != separate ? 1 : 0;
      x.split_differ += halves[0] + halves[1] != separate ? 1 : 0;
      if (fused != separate && x.fused_differ++ == 0) {
        // Two doubles of one sign are as many ulps apart as their bit patterns.
        const auto ulps =
            std::bit_cast<std::int64_t>(fused) - std::bit_cast<std::int64_t>(separate);
        x.first_fused = {i, j, separate, fused, ulps < 0 ? -ulps : ulps};
      }
    }
  return x;
}
// endregion: compare-orders

// region: shape-errors
std::vector<std::array<std::string, 2>> shape_errors() {
  using snippets::error_text;
  return {
      {"vector_times_matrix",
       error_text(matmul(Tensor::zeros(Shape{3}), Tensor::zeros(Shape{3, 2})))},
      {"inner_mismatch",
       error_text(matmul(Tensor::zeros(Shape{2, 3}), Tensor::zeros(Shape{2, 3})))},
      {"batch_mismatch", error_text(matmul(Tensor::zeros(Shape{2, 2, 3}),
                                           Tensor::zeros(Shape{3, 3, 2})))},
  };
}
// endregion: shape-errors

// region: exercises
Step<Exercises> solve_exercises() {
  Exercises x;
  x.linear_flops = matmul_flops(Shape{2, 8, 16}, Shape{16, 64});
  const Tensor product = LLMFS_TRY_AT(
      "exercise 2",
      matmul(Tensor::zeros(Shape{2, 1, 4, 3}), Tensor::zeros(Shape{5, 3, 6})));
  x.batched_shape = product.shape();
  x.kernel_calls = product.size() / (4 * 6);
  constexpr std::size_t n = 512, line_bytes = 64;  // 512×512 doubles, 64-byte lines
  for (const LoopOrder order : {LoopOrder::ijk, LoopOrder::ikj}) {
    const auto reads = inner_loop_reads(order, n, n, n);
    const auto o = static_cast<std::size_t>(order);
    x.stride_bytes[o] = (reads[1] - reads[0]) * sizeof(double);
    std::set<std::size_t> lines;
    for (const std::size_t r : reads)
      lines.insert(r * sizeof(double) / line_bytes);
    x.lines_touched[o] = lines.size();
    x.elements_read[o] = reads.size();
  }
  return x;
}
// endregion: exercises

// region: multiply-fixture
// a·b by the library; a stack of two left matrices times one b (b's missing batch axis
// broadcasts); the batch shape of [2,1,2,3]·[3,3,2]; then the rest of the chapter.
Step<Evidence> gather() {
  Evidence e;
  const Tensor a =
      LLMFS_TRY_AT("a", Tensor::from(Shape{2, 3}, {kLeft.begin(), kLeft.end()}));
  const Tensor b =
      LLMFS_TRY_AT("b", Tensor::from(Shape{3, 2}, {kRight.begin(), kRight.end()}));
  e.product = LLMFS_TRY_AT("a·b", matmul(a, b));
  e.flops = matmul_flops(a.shape(), b.shape());
  std::vector<double> stack(kLeft.begin(), kLeft.end());
  stack.insert(stack.end(), kSelector.begin(), kSelector.end());
  const Tensor stacked = LLMFS_TRY_AT("stack", Tensor::from(Shape{2, 2, 3}, stack));
  e.stacked = LLMFS_TRY_AT("[a; selector]·b", matmul(stacked, b));
  const auto grid =
      matmul(Tensor::zeros(Shape{2, 1, 2, 3}), Tensor::zeros(Shape{3, 3, 2}));
  e.broadcast_batch = LLMFS_TRY_AT("batch broadcast", grid).shape();
  e.changes = LLMFS_TRY_AT("sum orders", changed_sums());
  e.reads = {inner_loop_reads(LoopOrder::ijk, 2, 3, 2),
             inner_loop_reads(LoopOrder::ikj, 2, 3, 2)};
  e.walks = {inner_loop_reads(LoopOrder::ijk, kWalkK, kWalkK, kWalkM),
             inner_loop_reads(LoopOrder::ikj, kWalkK, kWalkK, kWalkM)};
  e.errors = shape_errors();
  e.exercises = LLMFS_TRY_AT("exercises", solve_exercises());
  return e;
}
// endregion: multiply-fixture

}  // namespace ch11
