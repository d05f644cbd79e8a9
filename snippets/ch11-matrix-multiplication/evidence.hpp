// Chapter 11
#pragma once
// Chapter 11's program: every value its report and trace print, gathered once from the
// library's matmul (src/llmfs/tensor/matmul.hpp), and the functions that render them.

#include <array>
#include <cstddef>
#include <cstdint>
#include <string>
#include <utility>
#include <vector>

#include <llmfs/tensor/matmul.hpp>

#include "../common/chapter.hpp"
#include "fixture.hpp"

namespace ch11 {

using llmfs::tensor::Shape;
using llmfs::tensor::Tensor;

/// c = a·b for rank-2 a [n,k] and b [k,m] by the textbook triple loop, i-j-k: one dot
/// product per element. Precondition: the shapes fit (the chapter's fixtures).
[[nodiscard]] Tensor naive_matmul(const Tensor& a, const Tensor& b);

/// The random comparison's operands, [kRandomN,kRandomK] and [kRandomK,kRandomM],
/// uniform in [−1, 1) from seeds 11 and 12.
[[nodiscard]] std::pair<Tensor, Tensor> random_operands();

/// The answers of the chapter's exercises, computed.
struct Exercises {
  double linear_flops = 0.0;                   ///< 1: FLOPs of [2,8,16]·[16,64]
  Shape batched_shape;                         ///< 2: the shape of [2,1,4,3]·[5,3,6]
  std::size_t kernel_calls = 0;                ///< 2: matrix pairs multiplied
  std::array<std::size_t, 2> stride_bytes{};   ///< 3: bytes between b reads (ijk, ikj)
  std::array<std::size_t, 2> lines_touched{};  ///< 3: cache lines of b per inner loop
  std::array<std::size_t, 2> elements_read{};  ///< 3: b elements per inner loop
};

/// One dot product of the random case computed two ways.
struct FusedCase {
  std::size_t i = 0, j = 0;  ///< the element c[i,j]
  double separate = 0.0;     ///< round(round(a·b) + sum) per term: the library's value
  double fused = 0.0;        ///< std::fma(a, b, sum) per term: one rounding per term
  std::int64_t ulps = 0;     ///< how many doubles apart the two are
};

/// What changing the sum does to the random product's 1,073 elements.
struct OrderChanges {
  std::size_t reversed_differ = 0;  ///< elements that change if each sum runs backwards
  std::size_t split_differ = 0;     ///< … if each sum is two halves added at the end
  std::size_t fused_differ = 0;     ///< elements that change if each term is fused
  FusedCase first_fused;            ///< the first element the fusing changes
};

/// Everything the report and the trace print.
struct Evidence {
  Tensor product;         ///< a·b, [2,2]
  double flops = 0.0;     ///< 2·2·3·2
  Tensor stacked;         ///< [a; selector]·b, [2,2,2] (b broadcast over the batch)
  Shape broadcast_batch;  ///< the shape of [2,1,2,3]·[3,3,2]
  OrderChanges changes;   ///< reversed and fused sums against the library
  std::array<std::vector<std::size_t>, 2> reads;   ///< inner-loop b offsets (ijk, ikj)
  std::array<std::vector<std::size_t>, 2> walks;   ///< the same on the diagram's b
  std::vector<std::array<std::string, 2>> errors;  ///< name and error text
  Exercises exercises;                             ///< the exercise answers
};

/// Runs the whole chapter once.
[[nodiscard]] snippets::Step<Evidence> gather();
/// The report, one `key=value` line per fact.
[[nodiscard]] std::string render_report(const Evidence& evidence);
/// The trace records the diagram is drawn from.
[[nodiscard]] std::string render_trace(const Evidence& evidence);

}  // namespace ch11
