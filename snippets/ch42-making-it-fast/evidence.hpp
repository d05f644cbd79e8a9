// Chapter 42
#pragma once
// Chapter 42's program: every value its report and trace print, gathered once from the
// library's matmul (src/llmfs/tensor/matmul.hpp), and the functions that render them.

#include <string>
#include <vector>

#include <llmfs/tensor/matmul.hpp>

#include "../common/chapter.hpp"
#include "fixture.hpp"

namespace ch42 {

using llmfs::tensor::MatmulBlocking;
using snippets::Step;

/// How one path's blocks cut a product: tiles, k-blocks and micro-kernel calls.
struct Cut {
  std::size_t row_tiles = 0, col_tiles = 0, k_blocks = 0;
  std::size_t tile_calls = 0;  ///< row_tiles · col_tiles · k_blocks
  std::size_t edge_calls = 0;  ///< calls on a tile that reaches past c's edge
};

/// One checked shape: how many comparisons with the teaching loop, how many equal.
struct BitCheck {
  Product shape;
  std::size_t compared = 0, equal = 0;
};

/// The roofline's numbers, from the fixture's stated machine (GFLOP/s, flop/byte).
struct Roofline {
  double peak_mul_add = 0, peak_fma = 0, tile_intensity = 0, ridge = 0;
  double intensity_1024 = 0, attainable_1024 = 0;
};

/// The misconception: FMA and a split sum against the teaching bits, and the fast path.
struct OrderCheck {
  std::size_t outputs = 0, fma_differs = 0, split_differs = 0, fast_differs = 0;
  double fma_max_relative = 0;
};

/// The exercises' answers, computed.
struct Exercises {
  std::size_t avx2_registers = 0, avx512_registers = 0;  ///< 1: accumulators + b + a
  Cut square_1024;                           ///< 2: n = k = m = 1024 on the AVX2 kernel
  double attention_forward_flops = 0;        ///< 3: (4,128,128,4)
  std::size_t smallest_compute_bound_n = 0;  ///< 4: n/12 ≥ ridge
};

/// Everything the report and the trace print.
struct Evidence {
  std::vector<std::pair<std::string, MatmulBlocking>> blockings;  ///< per fast path
  Cut predict;                                                    ///< kPredict, AVX-512
  bool predict_equal = false;           ///< kPredict on the default path, bitwise
  std::vector<BitCheck> checks;         ///< kChecked
  std::vector<double> square_flops;     ///< 2n³ at n = 1024, 2048
  std::vector<double> attention_flops;  ///< forward matmul FLOPs per kAttention shape
  Roofline roofline;            ///< kZen3 with the AVX2 tile (the benchmark's machine)
  Roofline roofline_skylake_x;  ///< kSkylakeX with the AVX-512 tile
  OrderCheck order;
  Exercises exercises;
};

/// How `blocking` cuts `p`.
[[nodiscard]] Cut cut(const MatmulBlocking& blocking, const Product& p);
/// Compares every fast way of computing `p` with the teaching loop.
[[nodiscard]] Step<BitCheck> check_bits(const Product& p);
/// The matmul FLOPs of one multi-head attention forward pass.
[[nodiscard]] double attention_forward_flops(const AttentionShape& s);
/// The roofline of a stated machine with a path's tile.
[[nodiscard]] Roofline roofline(const Machine& machine, const MatmulBlocking& blocking);
/// FMA, split sums and the fast path against the teaching loop on [97,257]·[257,65].
[[nodiscard]] Step<OrderCheck> check_orders();
/// The exercise answers.
[[nodiscard]] Step<Exercises> solve_exercises();
/// Runs the whole chapter once.
[[nodiscard]] Step<Evidence> gather();

/// The report, one `key=value` line per fact.
[[nodiscard]] std::string render_report(const Evidence& evidence);
/// The trace records the diagram is drawn from (the blocks of kTraced).
[[nodiscard]] std::string render_trace(const Evidence& evidence);

}  // namespace ch42
