// Chapter 29
#pragma once
/// \file
/// \brief Rotary position embedding on adjacent coordinate pairs (Su et al. 2021;
/// Chapter 29).

#include <cstddef>
#include <expected>
#include <memory>
#include <optional>
#include <span>
#include <string>
#include <string_view>

#include <fmt/format.h>

#include <llmfs/autograd/error.hpp>
#include <llmfs/autograd/tape.hpp>
#include <llmfs/core/error.hpp>
#include <llmfs/tensor/tensor.hpp>

namespace llmfs::attention {

/// What went wrong in a rotary embedding.
enum class RopeErrorCode {
  zero_width,          ///< the rotated width is 0
  odd_width,           ///< the rotated width is odd: a coordinate would have no partner
  invalid_base,        ///< the base is not a finite number greater than 1
  zero_capacity,       ///< the capacity (max positions) is 0
  capacity_too_large,  ///< the `[max_positions, width/2]` tables cannot be stored
  input_rank,          ///< the input has fewer than two axes `[..., T, width]`
  input_width,         ///< the input's last axis differs from the rotated width
  offset_overflow,     ///< `offset + T` overflows `std::size_t`
  position_range,      ///< `offset + T` exceeds the capacity
  autograd,            ///< a tape operation failed; `cause` holds its AutogradError
};

/// The fixed description of a code, e.g. `"position interval exceeds capacity"`.
[[nodiscard]] std::string_view describe(RopeErrorCode code) noexcept;

/// One typed RoPE error: the kind, the stage (`"RoPE configuration"` or `"RoPE
/// rotate"`), a detail sentence with the numbers, and for RopeErrorCode::autograd the
/// wrapped tape error.
using RopeError =
    StageError<RopeErrorCode, RopeErrorCode::autograd, autograd::AutogradError>;

/// Rotary position embedding: pair `i` of the row at absolute position `p` is turned by
/// the angle `p·θ_i`, `θ_i = base^(−2i/width)`: `y[2i] = x[2i]·cos − x[2i+1]·sin`,
/// `y[2i+1] = x[2i]·sin + x[2i+1]·cos`.
///
/// The rates θ_i and the tables `cos(p·θ_i)`, `sin(p·θ_i)` for `p < max_positions` are
/// computed once at construction. A row at token index `t` of a call with position
/// offset `o` has `p = o + t`. The score between a rotated query at `p` and a rotated
/// key at `s` depends on `p − s` only. Source: Su et al. (2021), *RoFormer*, §3.4;
/// Chapter 29. Copies share tables.
class RotaryEmbedding {
 public:
  /// Checks the configuration and fills the tables.
  /// \param width the rotated width d (the head width in multi-head attention); even, >
  /// 0. \param max_positions the capacity P: positions `0..P−1` are available; > 0.
  /// \param base the base b of the rates; finite and > 1 so that θ_0 = 1 > θ_1 > ... .
  /// \return RopeErrorCode::zero_width, RopeErrorCode::odd_width,
  /// RopeErrorCode::zero_capacity,
  ///         RopeErrorCode::invalid_base or RopeErrorCode::capacity_too_large (the
  ///         tables' element count exceeds tensor::max_element_count()), in that order,
  ///         all checked before anything is allocated (stage `"RoPE configuration"`).
  [[nodiscard]] static std::expected<RotaryEmbedding, RopeError> create(
      std::size_t width, std::size_t max_positions, double base);

  /// Rotates x, shaped `[..., T, width]`, at positions offset to offset+T−1 on the
  /// tape; same shape. Backward turns the upstream gradient by the opposite angle (the
  /// transpose of a rotation). The position interval is checked before any tape access.
  /// \return RopeErrorCode::input_rank, RopeErrorCode::input_width,
  ///         RopeErrorCode::offset_overflow, RopeErrorCode::position_range, or
  ///         RopeErrorCode::autograd (e.g. a released input).
  [[nodiscard]] std::expected<autograd::TensorValue, RopeError> rotate(
      const autograd::TensorValue& x, std::size_t offset) const;

  /// The same rotation on a plain tensor (no tape), with the same checks.
  /// \return RopeErrorCode::input_rank, RopeErrorCode::input_width,
  ///         RopeErrorCode::offset_overflow or RopeErrorCode::position_range (never
  ///         RopeErrorCode::autograd: there is no tape).
  [[nodiscard]] std::expected<tensor::Tensor, RopeError> rotate(
      const tensor::Tensor& x, std::size_t offset) const;

  /// The rotated width d.
  [[nodiscard]] std::size_t width() const noexcept { return width_; }
  /// The capacity P (number of positions in the tables).
  [[nodiscard]] std::size_t max_positions() const noexcept { return max_positions_; }
  /// The base b.
  [[nodiscard]] double base() const noexcept { return base_; }
  /// The rates `θ_i = base^(−2i/width)`, `i = 0..width/2−1`, in radians per position.
  [[nodiscard]] std::span<const double> frequencies() const noexcept;
  /// `cos(p·θ_i)` as a `[max_positions, width/2]` tensor.
  [[nodiscard]] const tensor::Tensor& cos_table() const noexcept;
  /// `sin(p·θ_i)` as a `[max_positions, width/2]` tensor.
  [[nodiscard]] const tensor::Tensor& sin_table() const noexcept;

  /// Internal: the rates and tables shared by copies and by backward closures.
  struct Tables;

 private:
  RotaryEmbedding(std::size_t width, std::size_t max_positions, double base,
                  std::shared_ptr<const Tables> tables)
      : width_(width),
        max_positions_(max_positions),
        base_(base),
        tables_(std::move(tables)) {}
  [[nodiscard]] std::expected<void, RopeError> check(const tensor::Shape& shape,
                                                     std::size_t offset) const;
  std::size_t width_;
  std::size_t max_positions_;
  double base_;
  std::shared_ptr<const Tables> tables_;
};

}  // namespace llmfs::attention
