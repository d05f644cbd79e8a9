// Chapter 9
#include "evidence.hpp"

#include <numeric>
#include <set>

namespace ch09 {

using llmfs::tensor::bitwise_equal;
using llmfs::tensor::is_row_major;
using llmfs::tensor::reshape;
using llmfs::tensor::transpose;
using llmfs::tensor::transposed_view;

namespace {

Shape shape_of(std::span<const std::size_t> dims) {
  return Shape(std::vector<std::size_t>(dims.begin(), dims.end()));
}

// Σ index · stride: the storage offset a view's index reads.
std::size_t view_offset(std::span<const std::size_t> index, const StridedView& view) {
  return std::inner_product(index.begin(), index.end(), view.strides.begin(),
                            std::size_t{0});
}

}  // namespace

Step<Tensor> make_fixture() {
  std::vector<double> values(24);
  std::iota(values.begin(), values.end(), 0.0);
  return LLMFS_TRY_AT("fixture tensor",
                      Tensor::from(shape_of(kDims), std::move(values)));
}

// region: reshape-all
// Each new shape twice: from a const tensor (a copy of the storage, in order) and from
// a tensor given up (the storage moves: the same address comes back).
Step<std::vector<Reshaped>> reshape_all(const Tensor& tensor) {
  std::vector<Reshaped> out;
  for (const auto& dims : kReshapes) {
    Reshaped r{Shape(dims), {}, false, false};
    const Tensor copied = LLMFS_TRY_AT("reshape", reshape(tensor, r.shape));
    r.strides = llmfs::tensor::row_major_strides(copied.shape());
    r.same_values = bitwise_equal(copied.values(), tensor.values());
    Tensor given_up = tensor;
    const double* storage = given_up.values().data();
    const Tensor moved = LLMFS_TRY_AT("reshape", reshape(std::move(given_up), r.shape));
    r.moved = moved.values().data() == storage;
    out.push_back(std::move(r));
  }
  return out;
}
// endregion: reshape-all

// region: transpose-one
// The view a transpose describes, whether it is already row-major, and the tensor the
// library materialises from it.
Step<Transposed> transpose_one(const Tensor& tensor, std::array<std::size_t, 2> axes) {
  Transposed t;
  t.axes = axes;
  t.view = transposed_view(tensor.shape(), axes[0], axes[1]);
  t.row_major = is_row_major(t.view);
  const Tensor copy = LLMFS_TRY_AT("transpose", transpose(tensor, axes[0], axes[1]));
  t.values.assign(copy.values().begin(), copy.values().end());
  return t;
}
// endregion: transpose-one

// region: refusals
// Each refusal's error, formatted as the library formats it.
std::vector<std::string> refusals(const Tensor& tensor) {
  using snippets::error_text;
  const std::size_t half = std::size_t{1} << 32;
  return {
      "reshape_count=" + error_text(reshape(tensor, Shape{5, 5})),
      "reshape_overflow=" + error_text(reshape(tensor, Shape{half, half})),
      "transpose_axis=" + error_text(transpose(tensor, 0, 3)),
  };
}
// endregion: refusals

// region: exercises
// 1: an offset through the (0,2) view; 2: which transposes of [2,3,1] stay row-major,
// and the order the (0,2) one reads; 3: transposing (0,2) twice.
Step<Exercises> solve_exercises(const Tensor& tensor) {
  Exercises x;
  x.offset = view_offset(kExerciseIndex, transposed_view(tensor.shape(), 0, 2));
  const std::array<std::array<std::size_t, 2>, 3> pairs{{{0, 1}, {1, 2}, {0, 2}}};
  for (std::size_t k = 0; k < pairs.size(); ++k)
    x.row_major[k] = is_row_major(
        transposed_view(shape_of(kExerciseDims), pairs[k][0], pairs[k][1]));
  const Tensor small = LLMFS_TRY_AT(
      "exercise tensor", Tensor::from(shape_of(kExerciseDims), {0, 1, 2, 3, 4, 5}));
  x.values_0_2 = LLMFS_TRY(transpose_one(small, {0, 2})).values;
  const Tensor once = LLMFS_TRY_AT("transpose", transpose(tensor, 0, 2));
  const Tensor twice = LLMFS_TRY_AT("transpose", transpose(once, 0, 2));
  x.round_trip = bitwise_equal(twice, tensor);
  return x;
}
// endregion: exercises

// The whole chapter in one pass. Flattening the (0,2) transpose shows why it cannot
// stay a view of [24]: consecutive elements are not one stride apart.
Step<Evidence> gather() {
  Evidence e;
  const Tensor tensor = LLMFS_TRY(make_fixture());
  e.reshapes = LLMFS_TRY(reshape_all(tensor));
  for (const auto& axes : kTransposes)
    e.transposes.push_back(LLMFS_TRY(transpose_one(tensor, axes)));
  const Transposed& swap02 = e.transposes[0];
  e.view_offset = view_offset(kViewIndex, swap02.view);
  e.view_value =
      swap02.values[llmfs::tensor::row_major_offset(swap02.view.shape, kViewIndex)];
  const Tensor unit = LLMFS_TRY_AT(
      "unit tensor", Tensor::from(shape_of(kUnitDims), {0, 1, 2, 3, 4, 5, 6, 7}));
  e.unit = LLMFS_TRY(transpose_one(unit, {0, 1}));
  e.unit_same_order = bitwise_equal(e.unit.values, unit.values());
  for (std::size_t k = 1; k < swap02.values.size(); ++k)
    e.flat_steps.push_back(swap02.values[k] - swap02.values[k - 1]);
  e.errors = refusals(tensor);
  const Tensor reshaped = LLMFS_TRY_AT("reshape", reshape(tensor, swap02.view.shape));
  for (std::size_t k = 0; k < reshaped.size(); ++k)
    e.misconception_agree += reshaped.values()[k] == swap02.values[k];
  e.exercises = LLMFS_TRY(solve_exercises(tensor));
  return e;
}

}  // namespace ch09
