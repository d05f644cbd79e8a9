// Chapter 25
#include <cmath>
#include <string>
#include <utility>

#include <fmt/format.h>

#include <llmfs/core/try.hpp>
#include <llmfs/nn/rms_norm.hpp>

namespace llmfs::nn {

namespace {

std::string rms_stage(std::string_view name) {
  return fmt::format("rms_norm {}", name);
}

// region: rms-checks
// ε finite and positive (so a zero row divides by √ε, never by 0); rows [..., T, d]
// (as Linear's input) with d > 0.
[[nodiscard]] std::expected<void, NnError> check_rms_rows(const tensor::Shape& shape,
                                                          double epsilon,
                                                          std::string_view stage) {
  if (!std::isfinite(epsilon) || epsilon <= 0.0)
    return reject(NnErrorCode::epsilon, std::string(stage), fmt::format("{}", epsilon));
  if (shape.rank() < 2)
    return reject(NnErrorCode::input_rank, std::string(stage),
                  fmt::format("got {}", shape));
  if (shape[shape.rank() - 1] == 0)
    return reject(NnErrorCode::zero_width, std::string(stage),
                  fmt::format("{}", shape));
  return {};
}

// The gain is a vector as long as a row.
[[nodiscard]] std::expected<void, NnError> check_rms_gain(const tensor::Shape& gain,
                                                          std::size_t width,
                                                          std::string_view stage) {
  if (gain != tensor::Shape{width}) {
    return reject(NnErrorCode::gain_shape, std::string(stage),
                  fmt::format("rows of {}, gain {}", width, gain));
  }
  return {};
}
// endregion: rms-checks

}  // namespace

// region: rms-rows
std::expected<RmsRows, NnError> rms_rows(const tensor::Tensor& x, double epsilon) {
  // x: [..., d] -> n: [..., d], r: one per row
  LLMFS_TRY(check_rms_rows(x.shape(), epsilon, "rms_norm"));
  const std::size_t d = x.shape()[x.rank() - 1];
  const std::size_t rows = x.values().size() / d;
  RmsRows out{tensor::Tensor::zeros(x.shape()), std::vector<double>(rows)};
  const auto in = x.values();
  auto n = out.normalized.mutable_values();
  for (std::size_t row = 0; row < rows; ++row) {
    double squares = 0.0;
    for (std::size_t j = 0; j < d; ++j)
      squares += in[row * d + j] * in[row * d + j];
    // ε inside the root: r ≥ √ε > 0, so a zero row gives 0/√ε = 0.
    const double r = std::sqrt(squares / static_cast<double>(d) + epsilon);
    out.rms[row] = r;
    for (std::size_t j = 0; j < d; ++j)
      n[row * d + j] = in[row * d + j] / r;
  }
  return out;
}
// endregion: rms-rows

// region: rms-norm-op
std::expected<autograd::TensorValue, NnError> rms_norm(
    const autograd::TensorValue& x, const autograd::TensorValue& gain, double epsilon) {
  // x: [..., d], g: [d] -> y = n ⊙ g: [..., d]
  LLMFS_TRY(check_rms_rows(x.shape(), epsilon, "rms_norm"));
  const std::size_t d = x.shape()[x.shape().rank() - 1];
  LLMFS_TRY(check_rms_gain(gain.shape(), d, "rms_norm"));
  const tensor::Tensor* xv = LLMFS_TRY_AT("rms_norm", x.value_view());
  const tensor::Tensor* gv = LLMFS_TRY_AT("rms_norm", gain.value_view());
  RmsRows rows = LLMFS_TRY(rms_rows(*xv, epsilon));
  tensor::Tensor y = rows.normalized;
  auto yv = y.mutable_values();
  for (std::size_t i = 0; i < yv.size(); ++i)
    yv[i] *= gv->values()[i % d];
  // Backward: ĝ = ∂L/∂y ⊙ g; ∂L/∂x = (ĝ − n·mean(ĝ ⊙ n)) / r; ∂L/∂g = Σ_rows ∂L/∂y ⊙ n.
  auto backward = [rows = std::move(rows), d](autograd::BackwardContext& context)
      -> std::expected<void, autograd::AutogradError> {
    const auto up = context.upstream().values();
    const auto g = context.parent_value(1).values();
    const auto n = rows.normalized.values();
    tensor::Tensor gx = tensor::Tensor::zeros(rows.normalized.shape());
    tensor::Tensor gg = tensor::Tensor::zeros(tensor::Shape{d});
    for (std::size_t row = 0; row < rows.rms.size(); ++row) {
      const std::size_t at = row * d;
      double projection = 0.0;  // Σ_j ĝ_j n_j
      for (std::size_t j = 0; j < d; ++j)
        projection += up[at + j] * g[j] * n[at + j];
      const double mean = projection / static_cast<double>(d);
      for (std::size_t j = 0; j < d; ++j) {
        gx.mutable_values()[at + j] =
            (up[at + j] * g[j] - n[at + j] * mean) / rows.rms[row];
        gg.mutable_values()[j] += up[at + j] * n[at + j];
      }
    }
    LLMFS_TRY(context.accumulate(0, std::move(gx)));
    return context.accumulate(1, std::move(gg));
  };
  return LLMFS_TRY_AT("rms_norm", autograd::record_op("rms_norm", std::move(y),
                                                      {x, gain}, std::move(backward)));
}
// endregion: rms-norm-op

std::expected<RMSNorm, NnError> RMSNorm::create(autograd::Tape& tape,
                                                std::string_view name,
                                                std::size_t width, double epsilon) {
  const std::string stage = rms_stage(name);
  if (name.empty()) return reject(NnErrorCode::empty_name, stage);
  LLMFS_TRY(check_rms_rows(tensor::Shape{1, width}, epsilon, stage));
  if (tape.released()) return reject(NnErrorCode::released_tape, stage);
  // The gain starts at 1: a fresh layer only rescales each row to RMS ≈ 1.
  NamedParameter gain{fmt::format("{}.weight", name),
                      tape.parameter(tensor::Tensor::full(tensor::Shape{width}, 1.0))};
  return RMSNorm(std::move(gain), epsilon);
}

std::expected<RMSNorm, NnError> RMSNorm::from_parameters(NamedParameter gain,
                                                         double epsilon) {
  const std::string stage = rms_stage(gain.name);
  if (gain.name.empty()) return reject(NnErrorCode::empty_name, stage);
  const tensor::Shape& shape = gain.value.shape();
  if (shape.rank() != 1)
    return reject(NnErrorCode::gain_shape, stage, fmt::format("got {}", shape));
  LLMFS_TRY(check_rms_rows(tensor::Shape{1, shape[0]}, epsilon, stage));
  return RMSNorm(std::move(gain), epsilon);
}

std::expected<autograd::TensorValue, NnError> RMSNorm::forward(
    const autograd::TensorValue& x) const {
  // x: [..., d] -> [..., d]
  const std::string stage = rms_stage(gain_.name);
  const tensor::Shape& shape = x.shape();
  if (shape.rank() < 2)
    return reject(NnErrorCode::input_rank, stage, fmt::format("got {}", shape));
  if (shape[shape.rank() - 1] != width()) {
    return reject(NnErrorCode::input_width, stage,
                  fmt::format("expected {}, got {}", width(), shape[shape.rank() - 1]));
  }
  return rms_norm(x, gain_.value, epsilon_);
}

}  // namespace llmfs::nn
