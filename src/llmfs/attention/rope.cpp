// Chapter 29
#include <cmath>
#include <limits>
#include <vector>

#include <llmfs/attention/rope.hpp>
#include <llmfs/core/try.hpp>

namespace llmfs::attention {

std::string_view describe(RopeErrorCode code) noexcept {
  switch (code) {
    case RopeErrorCode::zero_width: return "rotated width must be nonzero";
    case RopeErrorCode::odd_width: return "rotated width must be even";
    case RopeErrorCode::invalid_base: return "base must be finite and greater than 1";
    case RopeErrorCode::zero_capacity: return "capacity must be at least one position";
    case RopeErrorCode::capacity_too_large:
      return "capacity too large for the angle tables";
    case RopeErrorCode::input_rank:
      return "input must have at least two axes [..., T, width]";
    case RopeErrorCode::input_width:
      return "input width differs from the rotated width";
    case RopeErrorCode::offset_overflow: return "position interval overflows";
    case RopeErrorCode::position_range: return "position interval exceeds capacity";
    case RopeErrorCode::autograd: return "tape operation failed";
  }
  return "unknown RoPE error";
}

struct RotaryEmbedding::Tables {
  std::vector<double> theta;  // [width/2]
  tensor::Tensor cos;         // [max_positions, width/2]
  tensor::Tensor sin;         // [max_positions, width/2]
};

// region: rope-checks
// Checked before anything is allocated (create) or recorded on the tape (rotate)
static std::expected<void, RopeError> check_configuration(std::size_t width,
                                                          std::size_t max_positions,
                                                          double base) {
  auto reject = [&](RopeErrorCode code) {
    return llmfs::reject(
        code, "RoPE configuration",
        fmt::format("width {}, max_positions {}, base {}", width, max_positions, base));
  };
  if (width == 0) return reject(RopeErrorCode::zero_width);
  if (width % 2 != 0) return reject(RopeErrorCode::odd_width);
  if (max_positions == 0) return reject(RopeErrorCode::zero_capacity);
  if (!std::isfinite(base) || !(base > 1.0)) return reject(RopeErrorCode::invalid_base);
  if (max_positions > tensor::max_element_count() / (width / 2))
    return reject(RopeErrorCode::capacity_too_large);
  return {};
}

std::expected<void, RopeError> RotaryEmbedding::check(const tensor::Shape& shape,
                                                      std::size_t offset) const {
  auto reject = [](RopeErrorCode code, std::string detail) {
    return llmfs::reject(code, "RoPE rotate", std::move(detail));
  };
  if (shape.rank() < 2)
    return reject(RopeErrorCode::input_rank, fmt::format("got {}", shape));
  const std::size_t tokens = shape[shape.rank() - 2];
  if (shape[shape.rank() - 1] != width_)
    return reject(RopeErrorCode::input_width,
                  fmt::format("expected {}, got {}", width_, shape[shape.rank() - 1]));
  if (offset > std::numeric_limits<std::size_t>::max() - tokens)
    return reject(RopeErrorCode::offset_overflow,
                  fmt::format("offset {} plus {} tokens", offset, tokens));
  if (offset + tokens > max_positions_)
    return reject(RopeErrorCode::position_range,
                  fmt::format("positions [{}, {}) but capacity {}", offset,
                              offset + tokens, max_positions_));
  return {};
}
// endregion: rope-checks

// region: rope-angles
std::expected<RotaryEmbedding, RopeError> RotaryEmbedding::create(
    std::size_t width, std::size_t max_positions, double base) {
  LLMFS_TRY(check_configuration(width, max_positions, base));
  const std::size_t pairs = width / 2;

  // One rate per pair: θ_i = base^(−2i/d), falling from θ_0 = 1
  auto tables = std::make_shared<Tables>();
  tables->theta.resize(pairs);
  for (std::size_t i = 0; i < pairs; ++i) {
    const double exponent =
        -(2.0 * static_cast<double>(i)) / static_cast<double>(width);
    tables->theta[i] = std::pow(base, exponent);
  }

  // Cosine and sine of every angle p·θ_i the layer may need
  tables->cos = tensor::Tensor::zeros(tensor::Shape{max_positions, pairs});
  tables->sin = tensor::Tensor::zeros(tensor::Shape{max_positions, pairs});
  auto cos_values = tables->cos.mutable_values();
  auto sin_values = tables->sin.mutable_values();
  for (std::size_t p = 0; p < max_positions; ++p) {
    for (std::size_t i = 0; i < pairs; ++i) {
      const double angle = static_cast<double>(p) * tables->theta[i];
      cos_values[p * pairs + i] = std::cos(angle);
      sin_values[p * pairs + i] = std::sin(angle);
    }
  }
  return RotaryEmbedding(width, max_positions, base, std::move(tables));
}
// endregion: rope-angles

std::span<const double> RotaryEmbedding::frequencies() const noexcept {
  return tables_->theta;
}
const tensor::Tensor& RotaryEmbedding::cos_table() const noexcept {
  return tables_->cos;
}
const tensor::Tensor& RotaryEmbedding::sin_table() const noexcept {
  return tables_->sin;
}

// region: rope-turn-pairs
// Turns every pair (x[2i], x[2i+1]) of every row of a [..., T, d] tensor by the angle
// direction·p·θ_i, p = offset + t. direction = +1 is the forward rotation; direction =
// −1 is its inverse (and transpose), which is exactly what the backward pass applies to
// the gradient.
static void turn_pairs(std::span<const double> in, std::span<double> out,
                       std::size_t tokens, std::size_t width, std::size_t offset,
                       const tensor::Tensor& cos_table, const tensor::Tensor& sin_table,
                       double direction) {
  // in, out: [..., T, d]
  const std::size_t pairs = width / 2;
  const std::size_t rows = width == 0 ? 0 : in.size() / width;
  const auto cos_values = cos_table.values();
  const auto sin_values = sin_table.values();
  for (std::size_t row = 0; row < rows; ++row) {
    const std::size_t position = offset + row % tokens;
    for (std::size_t i = 0; i < pairs; ++i) {
      const double c = cos_values[position * pairs + i];
      const double s = direction * sin_values[position * pairs + i];
      const double x0 = in[row * width + 2 * i];
      const double x1 = in[row * width + 2 * i + 1];
      out[row * width + 2 * i] = x0 * c - x1 * s;
      out[row * width + 2 * i + 1] = x0 * s + x1 * c;
    }
  }
}
// endregion: rope-turn-pairs

// region: rope-rotate
std::expected<autograd::TensorValue, RopeError> RotaryEmbedding::rotate(
    const autograd::TensorValue& x, std::size_t offset) const {
  // x: [..., T, d] -> [..., T, d]
  constexpr std::string_view stage = "RoPE rotate";
  LLMFS_TRY(check(x.shape(), offset));
  const tensor::Tensor* input = LLMFS_TRY_AT(stage, x.value_view());
  const std::size_t tokens = x.shape()[x.shape().rank() - 2];

  // Forward: turn each pair by +p·θ_i
  tensor::Tensor rotated = tensor::Tensor::zeros(x.shape());
  turn_pairs(input->values(), rotated.mutable_values(), tokens, width_, offset,
             tables_->cos, tables_->sin, +1.0);

  // Backward: turn the upstream gradient by −p·θ_i and add it into x's gradient
  auto backward = [tables = tables_, tokens, width = width_,
                   offset](autograd::BackwardContext& context)
      -> std::expected<void, autograd::AutogradError> {
    // g: [..., T, d] -> gx: [..., T, d]
    tensor::Tensor gradient = tensor::Tensor::zeros(context.upstream().shape());
    turn_pairs(context.upstream().values(), gradient.mutable_values(), tokens, width,
               offset, tables->cos, tables->sin, -1.0);
    return context.accumulate(0, std::move(gradient));
  };
  return LLMFS_TRY_AT(
      stage, autograd::record_op("rope", std::move(rotated), {x}, std::move(backward)));
}
// endregion: rope-rotate

std::expected<tensor::Tensor, RopeError> RotaryEmbedding::rotate(
    const tensor::Tensor& x, std::size_t offset) const {
  // x: [..., T, d] -> [..., T, d]
  LLMFS_TRY(check(x.shape(), offset));
  tensor::Tensor rotated = tensor::Tensor::zeros(x.shape());
  turn_pairs(x.values(), rotated.mutable_values(), x.shape()[x.rank() - 2], width_,
             offset, tables_->cos, tables_->sin, +1.0);
  return rotated;
}

}  // namespace llmfs::attention
