// Chapter 10
#include <algorithm>
#include <array>
#include <string>

#include <llmfs/core/try.hpp>
#include <llmfs/tensor/broadcast.hpp>
#include <llmfs/tensor/strided.hpp>

namespace llmfs::tensor {

std::expected<Shape, TensorError> broadcast_shapes(const Shape& a, const Shape& b,
                                                   std::string_view op) {
  const std::size_t rank = std::max(a.rank(), b.rank());
  std::vector<std::size_t> dims(rank, 1);
  for (std::size_t i = 0; i < rank; ++i) {
    // i counts axes from the right; a missing axis has length 1.
    const std::size_t la = i < a.rank() ? a[a.rank() - 1 - i] : 1;
    const std::size_t lb = i < b.rank() ? b[b.rank() - 1 - i] : 1;
    if (la != lb && la != 1 && lb != 1) {
      return std::unexpected(
          TensorError{TensorErrorCode::broadcast_mismatch,
                      std::string(op),
                      {a, b},
                      fmt::format("axis -{}: {} vs {}", i + 1, la, lb)});
    }
    dims[rank - 1 - i] = la == 1 ? lb : la;
  }
  return Shape(std::move(dims));
}

std::vector<std::size_t> broadcast_strides(const Shape& input, const Shape& output) {
  const std::vector<std::size_t> own = row_major_strides(input);
  std::vector<std::size_t> strides(output.rank(), 0);
  const std::size_t lead = output.rank() - input.rank();
  for (std::size_t axis = 0; axis < input.rank(); ++axis) {
    strides[lead + axis] = input[axis] == 1 ? 0 : own[axis];
  }
  return strides;
}

namespace {

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
  std::vector<double> values;
  values.reserve(out_shape.element_count().value_or(0));
  const auto av = a.values();
  const auto bv = b.values();
  for_each_strided<2>(out_shape,
                      {std::span<const std::size_t>(a_strides),
                       std::span<const std::size_t>(b_strides)},
                      [&](const std::array<std::size_t, 2>& at) {
                        values.push_back(combine(av[at[0]], bv[at[1]]));
                      });
  return Tensor::from(std::move(out_shape), std::move(values));
}

}  // namespace

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
  Tensor out = input;
  for (double& v : out.mutable_values())
    v *= factor;
  return out;
}

std::expected<Tensor, TensorError> sum(const Tensor& input) {
  double total = 0.0;
  for (double v : input.values())
    total += v;
  return Tensor::scalar(total);
}

std::expected<Tensor, TensorError> sum_to(const Tensor& input, const Shape& target) {
  const auto reduce_error = [&] {
    return std::unexpected(TensorError{
        TensorErrorCode::reduce_mismatch, "sum_to", {input.shape(), target}, {}});
  };
  // target must broadcast to the input's shape, and the broadcast must be the input's
  // shape.
  if (target.rank() > input.rank()) return reduce_error();
  auto joint = broadcast_shapes(target, input.shape(), "sum_to");
  if (!joint || *joint != input.shape()) return reduce_error();

  Tensor out = Tensor::zeros(target);
  const auto in_strides = row_major_strides(input.shape());
  const auto out_strides = broadcast_strides(target, input.shape());
  const auto in = input.values();
  auto acc = out.mutable_values();
  for_each_strided<2>(
      input.shape(),
      {std::span<const std::size_t>(in_strides),
       std::span<const std::size_t>(out_strides)},
      [&](const std::array<std::size_t, 2>& at) { acc[at[1]] += in[at[0]]; });
  return out;
}

}  // namespace llmfs::tensor
