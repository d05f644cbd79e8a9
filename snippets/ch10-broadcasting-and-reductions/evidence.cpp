// Chapter 10
#include "evidence.hpp"

#include <llmfs/core/try.hpp>
#include <llmfs/tensor/strided.hpp>

namespace ch10 {

using llmfs::tensor::add;
using llmfs::tensor::broadcast_shapes;
using llmfs::tensor::broadcast_strides;
using llmfs::tensor::multiply;
using llmfs::tensor::reduce_max;
using llmfs::tensor::reduce_mean;
using llmfs::tensor::reduce_sum;
using llmfs::tensor::subtract;
using llmfs::tensor::sum;
using llmfs::tensor::sum_to;

namespace {

template <std::size_t N>
Tensor tensor_of(Shape shape, const std::array<double, N>& values) {
  return Tensor::from(std::move(shape),
                      std::vector<double>(values.begin(), values.end()))
      .value();  // the fixture's sizes match by construction
}

}  // namespace

Tensor matrix() {
  return tensor_of(Shape{2, 3}, kMatrix);
}
Tensor row() {
  return tensor_of(Shape{3}, kRow);
}
Tensor column() {
  return tensor_of(Shape{2, 1}, kColumn);
}

// region: broadcast-fixture
// x + row stretches the row down x's two rows; row + column stretches both, the row
// down and the column across. The strides say how: 0 on every stretched axis.
Step<Evidence> broadcast_fixture() {
  Evidence e;
  e.x = matrix();
  e.x_plus_row = LLMFS_TRY_AT("x + row", add(e.x, row()));
  e.row_plus_column = LLMFS_TRY_AT("row + column", add(row(), column()));
  const Shape& out = e.row_plus_column.shape();
  e.strides = {broadcast_strides(Shape{3}, out), broadcast_strides(Shape{2, 1}, out)};
  for (std::size_t i = 0; i < out[0]; ++i) {
    for (std::size_t j = 0; j < out[1]; ++j) {
      const std::size_t r = i * e.strides[0][0] + j * e.strides[0][1];
      const std::size_t c = i * e.strides[1][0] + j * e.strides[1][1];
      e.cells.push_back({i, j, r, c, e.row_plus_column.values()[i * out[1] + j]});
    }
  }
  return e;
}
// endregion: broadcast-fixture

// region: reduce-fixture
// Sums over each axis, a mean and a maximum, the centring that needs the kept axis, and
// sum_to, with the adjoint identity ⟨broadcast(row), x⟩ = ⟨row, sum_to(x, [3])⟩.
Step<Evidence> reduce_fixture(Evidence e) {
  e.sum_axis0 = LLMFS_TRY_AT("sum axis 0", reduce_sum(e.x, 0));
  e.sum_axis1 = LLMFS_TRY_AT("sum axis 1", reduce_sum(e.x, 1));
  e.mean_axis1 = LLMFS_TRY_AT("mean axis 1", reduce_mean(e.x, 1));
  e.max_axis0 = LLMFS_TRY_AT("max axis 0", reduce_max(e.x, 0));
  e.centered = LLMFS_TRY_AT("centre", subtract(e.x, e.mean_axis1));
  e.sum_to_row = LLMFS_TRY_AT("sum_to row", sum_to(e.x, Shape{3}));
  e.sum_to_column = LLMFS_TRY_AT("sum_to column", sum_to(e.x, Shape{2, 1}));
  const Tensor stretched = LLMFS_TRY_AT("row ⊙ x", multiply(row(), e.x));
  e.adjoint_left = LLMFS_TRY_AT("⟨broadcast(row), x⟩", sum(stretched)).values()[0];
  const Tensor folded = LLMFS_TRY_AT("row ⊙ sum_to", multiply(row(), e.sum_to_row));
  e.adjoint_right = LLMFS_TRY_AT("⟨row, sum_to(x)⟩", sum(folded)).values()[0];
  const Tensor as_column =
      LLMFS_TRY_AT("reshape", Tensor::from(Shape{3, 1}, {10, 20, 30}));
  e.misconception = LLMFS_TRY_AT("row + row as column", add(row(), as_column)).shape();
  return e;
}
// endregion: reduce-fixture

// region: shape-errors
// One refused call per way a shape can be wrong, each kept as its error's text.
std::vector<std::array<std::string, 2>> shape_errors() {
  const Tensor x = matrix();
  const Tensor bad = tensor_of(Shape{2}, kBadRow);
  const Tensor empty = Tensor::zeros(Shape{2, 0});
  using snippets::error_text;
  return {
      {"add_2x3_and_2", error_text(add(x, bad))},
      {"reduce_sum_axis_2", error_text(reduce_sum(x, 2))},
      {"reduce_mean_empty_axis", error_text(reduce_mean(empty, 1))},
      {"reduce_max_empty_axis", error_text(reduce_max(empty, 1))},
      {"sum_to_wrong_length", error_text(sum_to(x, Shape{2}))},
      {"sum_to_higher_rank", error_text(sum_to(x, Shape{1, 2, 3}))},
      {"sum_to_not_broadcast", error_text(sum_to(x, Shape{2, 2}))},
  };
}
// endregion: shape-errors

// region: exercises
Step<Exercises> solve_exercises() {
  Exercises x;
  const Shape left(
      std::vector<std::size_t>(kExerciseLeft.begin(), kExerciseLeft.end()));
  const Shape right(
      std::vector<std::size_t>(kExerciseRight.begin(), kExerciseRight.end()));
  x.broadcast = LLMFS_TRY_AT("exercise 1", broadcast_shapes(left, right));
  x.ones_summed =
      LLMFS_TRY_AT("exercise 2", sum_to(Tensor::full(x.broadcast, 1.0), right));
  x.column_means = LLMFS_TRY_AT("exercise 3 mean", reduce_mean(matrix(), 0));
  const Tensor centered =
      LLMFS_TRY_AT("exercise 3", subtract(matrix(), x.column_means));
  x.centered_rows_sum = LLMFS_TRY_AT("exercise 3 sum", reduce_sum(centered, 0));
  return x;
}
// endregion: exercises

Step<Evidence> gather() {
  Evidence e = LLMFS_TRY_AT("broadcast fixture", broadcast_fixture());
  e = LLMFS_TRY_AT("reduce fixture", reduce_fixture(std::move(e)));
  e.errors = shape_errors();
  e.exercises = LLMFS_TRY_AT("exercises", solve_exercises());
  return e;
}

}  // namespace ch10
