// Chapter 18
#pragma once
/// \file
/// \brief The token-embedding layer: a named table `[V, d_model]` read by Chapter 16's
/// lookup, drawn `N(0, 1/d_model)` (Chapter 18).

#include <cstddef>
#include <expected>
#include <string_view>
#include <vector>

#include <llmfs/autograd/model_ops.hpp>
#include <llmfs/autograd/tape.hpp>
#include <llmfs/core/splitmix64.hpp>
#include <llmfs/nn/error.hpp>
#include <llmfs/nn/init.hpp>
#include <llmfs/nn/parameters.hpp>

namespace llmfs::nn {

// region: embedding-scheme
/// The course's scale for an embedding table of width `d_model`: normal with
/// `σ = 1/√d_model`, so a row has expected squared length 1. Precondition:
/// `model_width > 0` (Embedding::create checks it).
[[nodiscard]] InitScheme embedding_scheme(std::size_t model_width) noexcept;
// endregion: embedding-scheme

// region: embedding-class
/// Token ids `[B, T]` to vectors `[B, T, d_model]`: row `id` of the table `E [V,
/// d_model]` for every position (Bengio et al. 2003; Chapter 18). The parameter is
/// named
/// `<name>.weight`, as in PyTorch's `nn.Embedding`.
class Embedding {
 public:
  /// Creates `<name>.weight` `[V, d_model]` on `tape`, drawn by draw() with
  /// embedding_scheme(). Checked before the first draw: a rejected call leaves `rng`
  /// unchanged. \return NnErrorCode::empty_name or NnErrorCode::zero_width (stage
  ///         `embedding 'NAME'`), or the errors of make_parameter().
  [[nodiscard]] static std::expected<Embedding, NnError> create(autograd::Tape& tape,
                                                                std::string_view name,
                                                                std::size_t vocab,
                                                                std::size_t model_width,
                                                                SplitMix64& rng);

  /// The same with an explicit scheme (e.g. PyTorch's `N(0, 1)` or GPT's `N(0,
  /// 0.02²)`). \return the errors of create(), and those of draw() for the scheme.
  [[nodiscard]] static std::expected<Embedding, NnError> create(
      autograd::Tape& tape, std::string_view name, std::size_t vocab,
      std::size_t model_width, const InitScheme& scheme, SplitMix64& rng);

  /// A layer over an exact table `[V, d_model]`. \return NnErrorCode::empty_name,
  ///         NnErrorCode::weight_rank or NnErrorCode::zero_width (stage
  ///         `embedding 'TABLE'`, TABLE the table's name).
  [[nodiscard]] static std::expected<Embedding, NnError> from_parameter(
      NamedParameter table);

  /// `ids [B, T] -> [B, T, d_model]`; backward adds each position's gradient row into
  /// the table row it read. \return NnErrorCode::token_count (not B·T ids),
  ///         NnErrorCode::token_out_of_range naming the position and the id, or
  ///         NnErrorCode::autograd wrapping the tape's error (a released tape).
  [[nodiscard]] std::expected<autograd::TensorValue, NnError> forward(
      const autograd::TokenGrid& ids) const;
  // endregion: embedding-class

  /// Row `id` of the table, `[d_model]` (e.g. the BOS or EOS row).
  /// \return NnErrorCode::token_out_of_range, or NnErrorCode::autograd for a released
  ///         tape.
  [[nodiscard]] std::expected<tensor::Tensor, NnError> row(text::TokenId id) const;

  /// How many positions of `ids` read each row `[V]`: the number of upstream rows the
  /// backward pass adds into that row (0: its gradient is exactly zero).
  /// \return the errors of forward()'s id check.
  [[nodiscard]] std::expected<std::vector<std::size_t>, NnError> row_reads(
      const autograd::TokenGrid& ids) const;

  /// The table `E [V, d_model]`.
  [[nodiscard]] const NamedParameter& table() const noexcept { return table_; }
  /// The table, as the layer's one parameter.
  [[nodiscard]] std::vector<NamedParameter> parameters() const { return {table_}; }
  /// `V`, the rows.
  [[nodiscard]] std::size_t vocab_size() const noexcept {
    return table_.value.shape()[0];
  }
  /// `d_model`, the width of each row.
  [[nodiscard]] std::size_t model_width() const noexcept {
    return table_.value.shape()[1];
  }
  /// `V · d_model`, the number of learned scalars.
  [[nodiscard]] std::size_t parameter_count() const noexcept {
    return vocab_size() * model_width();
  }

 private:
  explicit Embedding(NamedParameter table) : table_(std::move(table)) {}
  NamedParameter table_;
};

}  // namespace llmfs::nn
