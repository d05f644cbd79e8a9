// Chapter 10
#include <algorithm>
#include <array>
#include <cmath>
#include <limits>
#include <string>

#include <llmfs/core/try.hpp>
#include <llmfs/tensor/broadcast.hpp>
#include <llmfs/tensor/strided.hpp>

namespace llmfs::tensor {

namespace {

// region: broadcast-checks
// The first pair of axis lengths that differ with neither of them 1; axis -1 is the
// last one.
TensorError broadcast_error(std::string_view op, const Shape& a, const Shape& b,
                            std::size_t from_right, std::size_t la, std::size_t lb) {
  return TensorError{TensorErrorCode::broadcast_mismatch,
                     std::string(op),
                     {a, b},
                     fmt::format("axis -{}: {} vs {}", from_right + 1, la, lb)};
}
// endregion: broadcast-checks

}  // namespace

// region: broadcast-shapes
// Align the shapes on the right; a missing leading axis has length 1. Each pair of
// lengths must be equal, or one of them 1, and the result takes the other one.
std::expected<Shape, TensorError> broadcast_shapes(const Shape& a, const Shape& b,
                                                   std::string_view op) {
  const std::size_t rank = std::max(a.rank(), b.rank());
  std::vector<std::size_t> dims(rank, 1);
  for (std::size_t i = 0; i < rank; ++i) {  // i counts axes from the right
    const std::size_t la = i < a.rank() ? a[a.rank() - 1 - i] : 1;
    const std::size_t lb = i < b.rank() ? b[b.rank() - 1 - i] : 1;
    if (la != lb && la != 1 && lb != 1)
      return std::unexpected(broadcast_error(op, a, b, i, la, lb));
    dims[rank - 1 - i] = la == 1 ? lb : la;
  }
  return Shape(std::move(dims));
}
// endregion: broadcast-shapes

// region: broadcast-strides
// Reading `input` as if it had shape `output`: the input's own row-major strides on its
// axes, stride 0 on an axis of length 1 and on every missing leading axis, so moving
// along such an axis reuses the same element. No element is copied.
std::vector<std::size_t> broadcast_strides(const Shape& input, const Shape& output) {
  const std::vector<std::size_t> own = row_major_strides(input);
  std::vector<std::size_t> strides(output.rank(), 0);
  const std::size_t lead = output.rank() - input.rank();
  for (std::size_t axis = 0; axis < input.rank(); ++axis) {
    strides[lead + axis] = input[axis] == 1 ? 0 : own[axis];
  }
  return strides;
}
// endregion: broadcast-strides

namespace {

// region: elementwise
// Visits every element of `shape` in row-major order with its offsets under two sets of
// strides: one odometer walk over every axis but the last, and a plain loop along the
// last (the odometer's per-element carry check, once per row); no visit when a length
// is 0.
template <typename Visit>
void for_each_offset_pair(const Shape& shape, std::span<const std::size_t> first,
                          std::span<const std::size_t> second, Visit visit) {
  const std::size_t rank = shape.rank(), outer = rank == 0 ? 0 : rank - 1;
  const std::size_t row = rank == 0 ? 1 : shape[outer];
  if (row == 0) return;  // [n, m, 0]: no element, however many rows
  const std::size_t first_step = rank == 0 ? 0 : first[outer];
  const std::size_t second_step = rank == 0 ? 0 : second[outer];
  const std::vector<std::size_t> dims = shape.as_vector();
  for_each_strided<2>(
      Shape(std::vector<std::size_t>(dims.begin(), dims.begin() + outer)),
      {first.first(outer), second.first(outer)},
      [&](const std::array<std::size_t, 2>& at) {
        for (std::size_t j = 0; j < row; ++j)
          visit(at[0] + j * first_step, at[1] + j * second_step);
      });
}

// Applies `combine` to every pair of broadcast elements, in the output's row-major
// order.
template <typename Combine>
[[nodiscard]] std::expected<Tensor, TensorError> elementwise(std::string_view op,
                                                             const Tensor& a,
                                                             const Tensor& b,
                                                             Combine combine) {
  auto out_shape = LLMFS_TRY(broadcast_shapes(a.shape(), b.shape(), op));
  const auto a_strides = broadcast_strides(a.shape(), out_shape);
  const auto b_strides = broadcast_strides(b.shape(), out_shape);
  Storage values;
  values.reserve(LLMFS_TRY(checked_element_count(out_shape, op)));
  const auto av = a.values();
  const auto bv = b.values();
  for_each_offset_pair(
      out_shape, a_strides, b_strides,
      [&](std::size_t i, std::size_t j) { values.push_back(combine(av[i], bv[j])); });
  return Tensor::from_storage(std::move(out_shape), std::move(values));
}
// endregion: elementwise

}  // namespace

// region: elementwise-ops
std::expected<Tensor, TensorError> add(const Tensor& a, const Tensor& b) {
  return elementwise("add", a, b, [](double x, double y) { return x + y; });
}

std::expected<Tensor, TensorError> subtract(const Tensor& a, const Tensor& b) {
  return elementwise("subtract", a, b, [](double x, double y) { return x - y; });
}

std::expected<Tensor, TensorError> multiply(const Tensor& a, const Tensor& b) {
  return elementwise("multiply", a, b, [](double x, double y) { return x * y; });
}

std::expected<Tensor, TensorError> scale(const Tensor& input, double factor) {
  Storage values;  // each product written once: no copy to multiply in place
  values.reserve(input.size());
  for (double v : input.values())
    values.push_back(v * factor);
  return Tensor::from_storage(input.shape(), std::move(values));
}
// endregion: elementwise-ops

namespace {

// region: fold-into
// The one reduction loop: walk the input in row-major order and fold each element into
// the output element it broadcasts from (`out` has the target's shape, and
// `broadcast_strides` maps every input index to it). Each output element receives its
// terms in increasing input order, so the result is fixed to the bit.
template <typename Fold>
void fold_into(const Tensor& input, Tensor& out, Fold fold) {
  const auto in_strides = row_major_strides(input.shape());
  const auto out_strides = broadcast_strides(out.shape(), input.shape());
  const auto in = input.values();
  auto acc = out.mutable_values();
  for_each_offset_pair(
      input.shape(), in_strides, out_strides,
      [&](std::size_t i, std::size_t o) { acc[o] = fold(acc[o], in[i]); });
}

// The input's shape with `axis` set to length 1: where a reduction over it lands.
Shape kept_axis(const Shape& shape, std::size_t axis) {
  std::vector<std::size_t> dims = shape.as_vector();
  dims[axis] = 1;
  return Shape(std::move(dims));
}
// endregion: fold-into

// region: reduction-checks
// A reduction's axis must exist; a mean or a maximum also needs at least one element
// on it.
[[nodiscard]] std::expected<void, TensorError> check_axis(std::string_view op,
                                                          const Tensor& input,
                                                          std::size_t axis,
                                                          bool needs_elements) {
  if (axis >= input.rank()) {
    return std::unexpected(
        TensorError{TensorErrorCode::axis_out_of_range,
                    std::string(op),
                    {input.shape()},
                    fmt::format("axis {} of rank {}", axis, input.rank())});
  }
  if (needs_elements && input.shape()[axis] == 0) {
    return std::unexpected(TensorError{TensorErrorCode::empty_reduction,
                                       std::string(op),
                                       {input.shape()},
                                       fmt::format("axis {} has length 0", axis)});
  }
  // [0,m,n] holds no element, yet its sum over axis 0, [1,m,n], may hold too many.
  LLMFS_TRY(checked_element_count(kept_axis(input.shape(), axis), op));
  return {};
}
// sum_to undoes a broadcast, so `target` must broadcast to the input's shape, and that
// broadcast must be the input's shape: [3,1] -> [2,3,4] may be undone, [2,3,4] -> [3,5]
// may not, and neither may [2,3] -> [1,2,3] (summing never adds an axis).
[[nodiscard]] std::expected<void, TensorError> check_sum_to(const Tensor& input,
                                                            const Shape& target) {
  auto joint = broadcast_shapes(target, input.shape(), "sum_to");
  if (!joint || *joint != input.shape()) {
    return std::unexpected(TensorError{
        TensorErrorCode::reduce_mismatch, "sum_to", {input.shape(), target}, {}});
  }
  LLMFS_TRY(checked_element_count(target, "sum_to"));  // [0,m,n] -> [1,m,n]
  return {};
}
// endregion: reduction-checks

}  // namespace

// region: reductions
std::expected<Tensor, TensorError> sum(const Tensor& input) {
  double total = 0.0;
  for (double v : input.values())
    total += v;
  return Tensor::scalar(total);
}

std::expected<Tensor, TensorError> reduce_sum(const Tensor& input, std::size_t axis) {
  LLMFS_TRY(check_axis("reduce_sum", input, axis, false));
  Tensor out = Tensor::zeros(kept_axis(input.shape(), axis));
  fold_into(input, out, [](double acc, double x) { return acc + x; });
  return out;
}

std::expected<Tensor, TensorError> reduce_mean(const Tensor& input, std::size_t axis) {
  LLMFS_TRY(check_axis("reduce_mean", input, axis, true));
  Tensor out = LLMFS_TRY(reduce_sum(input, axis));
  const double count = static_cast<double>(input.shape()[axis]);
  for (double& v : out.mutable_values())
    v /= count;
  return out;
}

// Starts from −∞; a NaN, once met, stays: the maximum of a list with a NaN is NaN.
std::expected<Tensor, TensorError> reduce_max(const Tensor& input, std::size_t axis) {
  LLMFS_TRY(check_axis("reduce_max", input, axis, true));
  Tensor out = Tensor::full(kept_axis(input.shape(), axis),
                            -std::numeric_limits<double>::infinity());
  fold_into(input, out, [](double best, double x) {
    if (std::isnan(best)) return best;
    return x > best || std::isnan(x) ? x : best;
  });
  return out;
}
// endregion: reductions

// region: sum-to
// Broadcasting copies one element to many places; sum_to adds the many back into the
// one. It is reduce_sum over every axis broadcasting stretched, in one walk.
std::expected<Tensor, TensorError> sum_to(const Tensor& input, const Shape& target) {
  LLMFS_TRY(check_sum_to(input, target));
  Tensor out = Tensor::zeros(target);
  fold_into(input, out, [](double acc, double x) { return acc + x; });
  return out;
}
// endregion: sum-to

}  // namespace llmfs::tensor
