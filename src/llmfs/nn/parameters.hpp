// Chapter 17
#pragma once
/// \file
/// \brief Named parameters: tape leaves with stable, unique names (Chapter 17).

#include <cstddef>
#include <expected>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include <llmfs/autograd/tape.hpp>
#include <llmfs/nn/error.hpp>

namespace llmfs::nn {

// region: named-parameter
/// A learned tensor and its name, e.g. `attention.query.weight` with a `[4,4]` tape
/// value. Checkpoints and reports address parameters by this name.
struct NamedParameter {
  std::string name;             ///< dotted name: `<layer>.<role>.weight`
  autograd::TensorValue value;  ///< the tape node (normally a Tape::parameter leaf)
};
// endregion: named-parameter

/// An ordered collection of parameters with unique names and distinct tape nodes.
///
/// The order is the order given to create() and never changes: it is the order of
/// reports, gradient lists and checkpoints.
class NamedParameters {
 public:
  /// An empty collection.
  NamedParameters() = default;

  /// Checks and keeps `parameters` in the given order.
  /// \return NnErrorCode::empty_name, NnErrorCode::duplicate_name, or
  ///         NnErrorCode::duplicate_node when two entries are the same node of the same
  ///         tape (stage `"named parameters"`).
  [[nodiscard]] static std::expected<NamedParameters, NnError> create(
      std::vector<NamedParameter> parameters);

  /// The parameters in their stable order.
  [[nodiscard]] std::span<const NamedParameter> items() const noexcept {
    return items_;
  }
  /// Number of parameters.
  [[nodiscard]] std::size_t size() const noexcept { return items_.size(); }
  /// The parameter called `name`, or nullptr.
  [[nodiscard]] const NamedParameter* find(std::string_view name) const noexcept;
  /// Total number of scalars over every parameter's shape.
  [[nodiscard]] std::size_t scalar_count() const noexcept;

  /// Iterator to the first parameter.
  [[nodiscard]] auto begin() const noexcept { return items_.begin(); }
  /// Iterator past the last parameter.
  [[nodiscard]] auto end() const noexcept { return items_.end(); }

 private:
  explicit NamedParameters(std::vector<NamedParameter> items)
      : items_(std::move(items)) {}
  std::vector<NamedParameter> items_;
};

}  // namespace llmfs::nn
