// Chapter 8
#include "evidence.hpp"

#include <algorithm>
#include <numeric>
#include <set>

namespace ch08 {

using llmfs::tensor::row_major_offset;
using llmfs::tensor::row_major_strides;

// region: make-fixture
// The values 0, 1, …, 23 in storage order: Tensor::from checks that 24 values fill
// the shape [2,3,4], and every element then shows its own offset.
Step<Tensor> make_fixture() {
  const Shape shape(std::vector<std::size_t>(kDims.begin(), kDims.end()));
  std::vector<double> values(24);
  std::iota(values.begin(), values.end(), 0.0);
  return LLMFS_TRY_AT("fixture tensor", Tensor::from(shape, std::move(values)));
}

ShapeFacts facts(const Shape& shape) {
  return {shape, shape.element_count().value_or(0), row_major_strides(shape)};
}
// endregion: make-fixture

// region: visit-cells
// Three nested loops, the outermost axis outermost: the order a reader writes the
// elements down in. Each cell gets the library's offset (Horner), the derivation's
// Σ i·stride, and the element Tensor::at reads.
Step<std::vector<Cell>> visit_cells(const Tensor& tensor) {
  const auto strides = row_major_strides(tensor.shape());
  std::vector<Cell> cells;
  for (std::size_t i0 = 0; i0 < kDims[0]; ++i0)
    for (std::size_t i1 = 0; i1 < kDims[1]; ++i1)
      for (std::size_t i2 = 0; i2 < kDims[2]; ++i2) {
        Cell cell{{i0, i1, i2}, 0, 0, 0.0};
        cell.offset = row_major_offset(tensor.shape(), cell.index);
        cell.dot = std::inner_product(cell.index.begin(), cell.index.end(),
                                      strides.begin(), std::size_t{0});
        cell.value = LLMFS_TRY_AT("read element", tensor.at(cell.index));
        cells.push_back(std::move(cell));
      }
  return cells;
}

// The way back: the number of whole stride-blocks of each axis, outermost first.
std::vector<std::size_t> unravel(const Shape& shape, std::size_t offset) {
  std::vector<std::size_t> index;
  for (const std::size_t stride : row_major_strides(shape)) {
    index.push_back(offset / stride);
    offset %= stride;
  }
  return index;
}
// endregion: visit-cells

// region: refusals
// Each refusal's error, formatted as the library formats it.
std::vector<std::string> refusals(const Tensor& tensor) {
  using snippets::error_text;
  return {
      "overflow=" + error_text(Tensor::from(Shape{kHalfWord, kHalfWord}, {})),
      "size=" + error_text(Tensor::from(Shape{2, 3, 4}, std::vector<double>(23))),
      "past_axis=" + error_text(tensor.at(kPastAxis)),
      "short_index=" + error_text(tensor.at(kShortIndex)),
  };
}
// endregion: refusals

// region: exercises
// 1: strides and an offset; 2: unravel; 3: the largest cube that can be counted,
// found by bisection on the library's own overflow check.
Exercises solve_exercises() {
  Exercises x;
  const Shape shape(
      std::vector<std::size_t>(kExerciseDims.begin(), kExerciseDims.end()));
  x.strides = row_major_strides(shape);
  x.offset = row_major_offset(shape, kExerciseIndex);
  x.index = unravel(Shape{kDims[0], kDims[1], kDims[2]}, kExerciseOffset);
  std::size_t fits = 1, overflows = kHalfWord;  // 1³ fits, (2³²)³ does not
  while (overflows - fits > 1) {
    const std::size_t mid = fits + (overflows - fits) / 2;
    (Shape{mid, mid, mid}.element_count() ? fits : overflows) = mid;
  }
  x.cube_side = fits;
  x.cube_count = Shape{fits, fits, fits}.element_count().value_or(0);
  x.next_cube_overflows = !Shape{fits + 1, fits + 1, fits + 1}.element_count();
  return x;
}
// endregion: exercises

// The whole chapter in one pass; the misconception's formula Σ i_a · n_a (each index
// times its own axis length) is evaluated on the same 24 indices.
Step<Evidence> gather() {
  Evidence e;
  const Tensor tensor = LLMFS_TRY(make_fixture());
  e.fixture = facts(tensor.shape());
  e.cells = LLMFS_TRY(visit_cells(tensor));
  for (const auto& pick : kPicks)
    e.picks.push_back(*std::find_if(e.cells.begin(), e.cells.end(), [&](const Cell& c) {
      return std::ranges::equal(c.index, pick);
    }));
  e.scalar = facts(Shape{});
  e.empty = facts(Shape{0, 3, 4});
  e.errors = refusals(tensor);
  std::set<std::size_t> wrong;
  for (const Cell& c : e.cells)
    wrong.insert(c.index[0] * kDims[0] + c.index[1] * kDims[1] + c.index[2] * kDims[2]);
  e.wrong_distinct = wrong.size();
  e.wrong_largest = *wrong.rbegin();
  e.exercises = solve_exercises();
  return e;
}

}  // namespace ch08
