// Chapter 15
#include <span>
#include <utility>
#include <vector>

#include <llmfs/autograd/ops.hpp>
#include <llmfs/core/try.hpp>
#include <llmfs/tensor/broadcast.hpp>
#include <llmfs/tensor/layout.hpp>
#include <llmfs/tensor/matmul.hpp>
#include <llmfs/tensor/softmax.hpp>

namespace llmfs::autograd {

namespace {

using tensor::Shape;
using tensor::Tensor;
using tensor::TensorError;

// The forward values of an op's inputs, after checking that they are live and share one
// tape.
template <std::size_t N>
[[nodiscard]] std::expected<std::array<const Tensor*, N>, AutogradError> inputs_of(
    std::string_view op, const std::array<const TensorValue*, N>& values) {
  std::array<const Tensor*, N> out{};
  for (std::size_t i = 0; i < N; ++i) {
    auto view = values[i]->value_view();
    if (!view) {
      AutogradError error = view.error();
      error.stage = std::string(op);
      return std::unexpected(std::move(error));
    }
    if (values[i]->tape() != values[0]->tape()) {
      return reject(
          AutogradErrorCode::different_tapes, op,
          fmt::format("nodes {} and {}", values[0]->node_id(), values[i]->node_id()));
    }
    out[i] = *view;
  }
  return out;
}

// Σ_j a_j·b_j, added in index order. Kept out of line: inlined into a loop that also
// appends to a vector, GCC keeps the running sum in memory, and each addition then
// waits for a store and a load.
[[nodiscard, gnu::noinline]] double dot_in_order(std::span<const double> a,
                                                 std::span<const double> b) {
  double dot = 0.0;
  for (std::size_t j = 0; j < a.size(); ++j)
    dot += a[j] * b[j];
  return dot;
}

// region: accumulate-reduced
// Adds `gradient`, reduced to the parent's shape, into parent `index` if it wants one.
[[nodiscard]] std::expected<void, AutogradError> accumulate_reduced(
    BackwardContext& ctx, std::size_t index, const Tensor& gradient,
    std::string_view stage) {
  if (!ctx.needs_gradient(index)) return {};
  if (gradient.shape() == ctx.parent_value(index).shape())
    return ctx.accumulate(index, gradient);
  Tensor reduced =
      LLMFS_TRY_AT(stage, tensor::sum_to(gradient, ctx.parent_value(index).shape()));
  return ctx.accumulate(index, std::move(reduced));
}
// endregion: accumulate-reduced

// The same for a gradient the closure gives up: moved in when no reduction is needed.
[[nodiscard]] std::expected<void, AutogradError> accumulate_reduced(
    BackwardContext& ctx, std::size_t index, Tensor&& gradient,
    std::string_view stage) {
  if (!ctx.needs_gradient(index)) return {};
  if (gradient.shape() == ctx.parent_value(index).shape())
    return ctx.accumulate(index, std::move(gradient));
  return accumulate_reduced(ctx, index, std::as_const(gradient), stage);
}

}  // namespace

// add / subtract / multiply

std::expected<TensorValue, AutogradError> add(const TensorValue& a,
                                              const TensorValue& b) {
  auto in = LLMFS_TRY(inputs_of<2>("add", {&a, &b}));
  // a: [...], b: [...] -> broadcast shape
  Tensor out = LLMFS_TRY_AT("add", tensor::add(*in[0], *in[1]));
  return record_op(
      "add", std::move(out), {a, b},
      [](BackwardContext& ctx) -> std::expected<void, AutogradError> {
        LLMFS_TRY(accumulate_reduced(ctx, 0, ctx.upstream(), "add backward"));
        return accumulate_reduced(ctx, 1, ctx.upstream(), "add backward");
      });
}

std::expected<TensorValue, AutogradError> subtract(const TensorValue& a,
                                                   const TensorValue& b) {
  auto in = LLMFS_TRY(inputs_of<2>("subtract", {&a, &b}));
  Tensor out = LLMFS_TRY_AT("subtract", tensor::subtract(*in[0], *in[1]));
  return record_op(
      "subtract", std::move(out), {a, b},
      [](BackwardContext& ctx) -> std::expected<void, AutogradError> {
        LLMFS_TRY(accumulate_reduced(ctx, 0, ctx.upstream(), "subtract backward"));
        if (!ctx.needs_gradient(1)) return {};
        Tensor negated =
            LLMFS_TRY_AT("subtract backward", tensor::scale(ctx.upstream(), -1.0));
        return accumulate_reduced(ctx, 1, std::move(negated), "subtract backward");
      });
}

// region: multiply-op
std::expected<TensorValue, AutogradError> multiply(const TensorValue& a,
                                                   const TensorValue& b) {
  auto in = LLMFS_TRY(inputs_of<2>("multiply", {&a, &b}));
  Tensor out = LLMFS_TRY_AT("multiply", tensor::multiply(*in[0], *in[1]));
  return record_op(
      "multiply", std::move(out), {a, b},
      [](BackwardContext& ctx) -> std::expected<void, AutogradError> {
        // ∂(a⊙b)/∂a = b and ∂(a⊙b)/∂b = a, each reduced over broadcast
        // axes.
        for (std::size_t i = 0; i < 2; ++i) {
          if (!ctx.needs_gradient(i)) continue;
          Tensor g =
              LLMFS_TRY_AT("multiply backward",
                           tensor::multiply(ctx.upstream(), ctx.parent_value(1 - i)));
          LLMFS_TRY(accumulate_reduced(ctx, i, std::move(g), "multiply backward"));
        }
        return {};
      });
}
// endregion: multiply-op

// scale

std::expected<TensorValue, AutogradError> scale(const TensorValue& a, double factor) {
  auto in = LLMFS_TRY(inputs_of<1>("scale", {&a}));
  Tensor out = LLMFS_TRY_AT("scale", tensor::scale(*in[0], factor));
  return record_op(
      "scale", std::move(out), {a},
      [factor](BackwardContext& ctx) -> std::expected<void, AutogradError> {
        Tensor g =
            LLMFS_TRY_AT("scale backward", tensor::scale(ctx.upstream(), factor));
        return ctx.accumulate(0, std::move(g));
      });
}

// matmul

// region: matmul-op
std::expected<TensorValue, AutogradError> matmul(const TensorValue& a,
                                                 const TensorValue& b) {
  auto in = LLMFS_TRY(inputs_of<2>("matmul", {&a, &b}));
  // a: [..., n, k], b: [..., k, m] -> [..., n, m]
  Tensor out = LLMFS_TRY_AT("matmul", tensor::matmul(*in[0], *in[1]));
  return record_op(
      "matmul", std::move(out), {a, b},
      [](BackwardContext& ctx) -> std::expected<void, AutogradError> {
        // g: [..., n, m]; ga = g · bᵀ : [..., n, k]; gb = aᵀ · g : [...,
        // k, m]. The transposed operand is read in place (Chapter 42): no
        // transposed copy, and the same bits as the product with one.
        using tensor::Transpose;
        if (ctx.needs_gradient(0)) {
          Tensor ga = LLMFS_TRY_AT(
              "matmul backward",
              tensor::matmul_transposed(ctx.upstream(), Transpose::no,
                                        ctx.parent_value(1), Transpose::yes));
          LLMFS_TRY(accumulate_reduced(ctx, 0, std::move(ga), "matmul backward"));
        }
        if (ctx.needs_gradient(1)) {
          Tensor gb = LLMFS_TRY_AT(
              "matmul backward",
              tensor::matmul_transposed(ctx.parent_value(0), Transpose::yes,
                                        ctx.upstream(), Transpose::no));
          return accumulate_reduced(ctx, 1, std::move(gb), "matmul backward");
        }
        return {};
      });
}
// endregion: matmul-op

// reshape / transpose

std::expected<TensorValue, AutogradError> reshape(const TensorValue& a,
                                                  tensor::Shape shape) {
  auto in = LLMFS_TRY(inputs_of<1>("reshape", {&a}));
  Tensor out = LLMFS_TRY_AT("reshape", tensor::reshape(*in[0], std::move(shape)));
  return record_op("reshape", std::move(out), {a},
                   [](BackwardContext& ctx) -> std::expected<void, AutogradError> {
                     Tensor g = LLMFS_TRY_AT(
                         "reshape backward",
                         tensor::reshape(ctx.upstream(), ctx.parent_value(0).shape()));
                     return ctx.accumulate(0, std::move(g));
                   });
}

std::expected<TensorValue, AutogradError> transpose(const TensorValue& a,
                                                    std::size_t axis_a,
                                                    std::size_t axis_b) {
  auto in = LLMFS_TRY(inputs_of<1>("transpose", {&a}));
  Tensor out = LLMFS_TRY_AT("transpose", tensor::transpose(*in[0], axis_a, axis_b));
  return record_op(
      "transpose", std::move(out), {a},
      [axis_a, axis_b](BackwardContext& ctx) -> std::expected<void, AutogradError> {
        // Swapping the same two axes again is the inverse permutation.
        Tensor g = LLMFS_TRY_AT("transpose backward",
                                tensor::transpose(ctx.upstream(), axis_a, axis_b));
        return ctx.accumulate(0, std::move(g));
      });
}

// slice

// region: slice-op
std::expected<TensorValue, AutogradError> slice_last_axis(const TensorValue& a,
                                                          std::size_t begin,
                                                          std::size_t end) {
  auto in = LLMFS_TRY(inputs_of<1>("slice_last_axis", {&a}));
  // a: [..., n] -> [..., end − begin]
  Tensor out =
      LLMFS_TRY_AT("slice_last_axis", tensor::slice_last_axis(*in[0], begin, end));
  return record_op("slice_last_axis", std::move(out), {a},
                   [begin](BackwardContext& ctx) -> std::expected<void, AutogradError> {
                     // g: [..., count] goes back into columns [begin, begin + count) of
                     // a zero [..., n].
                     const Tensor& g = ctx.upstream();
                     Tensor ga = Tensor::zeros(ctx.parent_value(0).shape());
                     const std::size_t width = ga.shape()[ga.rank() - 1];
                     const std::size_t count = g.shape()[g.rank() - 1];
                     const std::size_t rows = width == 0 ? 0 : ga.size() / width;
                     const auto gv = g.values();
                     auto out_v = ga.mutable_values();
                     for (std::size_t row = 0; row < rows; ++row) {
                       for (std::size_t j = 0; j < count; ++j) {
                         out_v[row * width + begin + j] = gv[row * count + j];
                       }
                     }
                     return ctx.accumulate(0, std::move(ga));
                   });
}
// endregion: slice-op

// sum

std::expected<TensorValue, AutogradError> sum(const TensorValue& a) {
  auto in = LLMFS_TRY(inputs_of<1>("sum", {&a}));
  Tensor out = LLMFS_TRY_AT("sum", tensor::sum(*in[0]));
  return record_op("sum", std::move(out), {a},
                   [](BackwardContext& ctx) -> std::expected<void, AutogradError> {
                     // Every element contributed with weight 1.
                     return ctx.accumulate(0, Tensor::full(ctx.parent_value(0).shape(),
                                                           ctx.upstream().values()[0]));
                   });
}

// softmax

// region: softmax-op
std::expected<TensorValue, AutogradError> softmax_last_axis(const TensorValue& a) {
  auto in = LLMFS_TRY(inputs_of<1>("softmax_last_axis", {&a}));
  Tensor out = LLMFS_TRY_AT("softmax_last_axis", tensor::softmax_last_axis(*in[0]));
  return record_op("softmax_last_axis", std::move(out), {a},
                   [](BackwardContext& ctx) -> std::expected<void, AutogradError> {
                     // Per row: gx_j = y_j · (g_j − Σ_k g_k y_k), from the output y
                     // alone. A masked entry has y_j = 0 and so receives exactly 0.
                     const Tensor& y = ctx.output();
                     const Tensor& g = ctx.upstream();
                     const std::size_t width = y.shape()[y.rank() - 1];
                     // Each element written once, in order (no zero-filled buffer),
                     // and the result moved into the gradient.
                     tensor::Storage gx;
                     gx.reserve(y.size());
                     if (width != 0) {
                       const auto yv = y.values();
                       const auto gv = g.values();
                       for (std::size_t start = 0; start < yv.size(); start += width) {
                         const double dot = dot_in_order(gv.subspan(start, width),
                                                         yv.subspan(start, width));
                         for (std::size_t j = 0; j < width; ++j)
                           gx.push_back(yv[start + j] * (gv[start + j] - dot));
                       }
                     }
                     Tensor gradient =
                         LLMFS_TRY_AT("softmax_last_axis backward",
                                      Tensor::from_storage(y.shape(), std::move(gx)));
                     return ctx.accumulate(0, std::move(gradient));
                   });
}
// endregion: softmax-op

}  // namespace llmfs::autograd
