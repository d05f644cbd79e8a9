// Chapter 10
#pragma once
// Chapter 10's program: every value its report and trace print, gathered once from the
// library's broadcasting and reductions (src/llmfs/tensor/broadcast.hpp), and the
// functions that render them.

#include <array>
#include <cstddef>
#include <string>
#include <vector>

#include <llmfs/tensor/broadcast.hpp>
#include <llmfs/tensor/tensor.hpp>

#include "../common/chapter.hpp"
#include "fixture.hpp"

namespace ch10 {

using llmfs::tensor::Shape;
using llmfs::tensor::Tensor;
using snippets::Step;

/// One element of row + column: where it was read from in each operand.
struct Cell {
  std::size_t i = 0;              ///< output row
  std::size_t j = 0;              ///< output column
  std::size_t row_offset = 0;     ///< offset read in the row (stride 0 on axis 0)
  std::size_t column_offset = 0;  ///< offset read in the column (stride 0 on axis 1)
  double value = 0.0;             ///< the sum
};

/// The answers of the chapter's exercises, computed.
struct Exercises {
  Shape broadcast;           ///< 1: broadcast_shapes([5,1,4], [3,1])
  Tensor ones_summed;        ///< 2: sum_to(ones [5,3,4], [3,1])
  Tensor column_means;       ///< 3: reduce_mean(x, 0)
  Tensor centered_rows_sum;  ///< 3: reduce_sum(x − reduce_mean(x, 0), 0)
};

/// Everything the report and the trace print.
struct Evidence {
  Tensor x;                ///< the fixture matrix, [2,3]
  Tensor x_plus_row;       ///< x + row, [2,3]
  Tensor row_plus_column;  ///< row + column, [2,3]
  std::array<std::vector<std::size_t>, 2>
      strides;                       ///< row's and column's, read as [2,3]
  std::vector<Cell> cells;           ///< every element of row + column
  Tensor sum_axis0, sum_axis1;       ///< reduce_sum(x, 0), reduce_sum(x, 1)
  Tensor mean_axis1, max_axis0;      ///< reduce_mean(x, 1), reduce_max(x, 0)
  Tensor centered;                   ///< x − reduce_mean(x, 1)
  Tensor sum_to_row, sum_to_column;  ///< sum_to(x, [3]), sum_to(x, [2,1])
  double adjoint_left = 0.0;         ///< ⟨broadcast(row), x⟩ = sum(row ⊙ x)
  double adjoint_right = 0.0;        ///< ⟨row, sum_to(x, [3])⟩
  Shape misconception;               ///< the shape of row + row-as-a-column
  std::vector<std::array<std::string, 2>> errors;  ///< name and error text
  Exercises exercises;                             ///< the exercise answers
};

/// The fixture as tensors.
[[nodiscard]] Tensor matrix();
[[nodiscard]] Tensor row();
[[nodiscard]] Tensor column();
/// Broadcasting: x + row, row + column, its strides and cells (fills those fields).
[[nodiscard]] Step<Evidence> broadcast_fixture();
/// The reductions, the centring and sum_to on x (fills those fields).
[[nodiscard]] Step<Evidence> reduce_fixture(Evidence e);
/// The shape errors, one per way a shape can be wrong: name and error text.
[[nodiscard]] std::vector<std::array<std::string, 2>> shape_errors();
/// The exercise answers.
[[nodiscard]] Step<Exercises> solve_exercises();
/// Runs the whole chapter once.
[[nodiscard]] Step<Evidence> gather();

/// The report, one `key=value` line per fact.
[[nodiscard]] std::string render_report(const Evidence& evidence);
/// The trace records the diagram is drawn from.
[[nodiscard]] std::string render_trace(const Evidence& evidence);

}  // namespace ch10
