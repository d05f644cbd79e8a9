// Chapter 18
#include <cmath>
#include <string>

#include <fmt/format.h>

#include <llmfs/core/try.hpp>
#include <llmfs/nn/embedding.hpp>

namespace llmfs::nn {

namespace {

std::string stage_of(std::string_view name) {
  return fmt::format("embedding '{}'", name);
}

// region: embedding-check
// Every id names a row of the table, and there are B·T of them.
std::expected<void, NnError> check_ids(const autograd::TokenGrid& ids,
                                       std::size_t vocab, const std::string& stage) {
  if (ids.ids.size() != ids.batch * ids.time) {
    return reject(
        NnErrorCode::token_count, stage,
        fmt::format("{} ids for [B={}, T={}]", ids.ids.size(), ids.batch, ids.time));
  }
  for (std::size_t p = 0; p < ids.ids.size(); ++p) {
    const auto id = ids.ids[p];
    if (id < 0 || static_cast<std::size_t>(id) >= vocab) {
      return reject(NnErrorCode::token_out_of_range, stage,
                    fmt::format("id {} at [{},{}] not in [0, {})", id, p / ids.time,
                                p % ids.time, vocab));
    }
  }
  return {};
}
// endregion: embedding-check

}  // namespace

InitScheme embedding_scheme(std::size_t model_width) noexcept {
  return {Distribution::normal, 1.0 / std::sqrt(static_cast<double>(model_width))};
}

std::expected<Embedding, NnError> Embedding::create(autograd::Tape& tape,
                                                    std::string_view name,
                                                    std::size_t vocab,
                                                    std::size_t model_width,
                                                    SplitMix64& rng) {
  if (model_width == 0) {  // embedding_scheme() needs d_model > 0
    return reject(NnErrorCode::zero_width, stage_of(name),
                  fmt::format("V {} and d_model {}", vocab, model_width));
  }
  return create(tape, name, vocab, model_width, embedding_scheme(model_width), rng);
}

std::expected<Embedding, NnError> Embedding::create(
    autograd::Tape& tape, std::string_view name, std::size_t vocab,
    std::size_t model_width, const InitScheme& scheme, SplitMix64& rng) {
  if (name.empty()) return reject(NnErrorCode::empty_name, stage_of(name));
  if (vocab == 0 || model_width == 0) {
    return reject(NnErrorCode::zero_width, stage_of(name),
                  fmt::format("V {} and d_model {}", vocab, model_width));
  }
  NamedParameter table =
      LLMFS_TRY(make_parameter(tape, fmt::format("{}.weight", name),
                               tensor::Shape{vocab, model_width}, scheme, rng));
  return Embedding(std::move(table));
}

std::expected<Embedding, NnError> Embedding::from_parameter(NamedParameter table) {
  const std::string stage = stage_of(table.name);
  if (table.name.empty()) return reject(NnErrorCode::empty_name, stage);
  const tensor::Shape& shape = table.value.shape();
  if (shape.rank() != 2) {
    return reject(NnErrorCode::weight_rank, stage, fmt::format("shape {}", shape));
  }
  if (shape[0] == 0 || shape[1] == 0) {
    return reject(NnErrorCode::zero_width, stage, fmt::format("shape {}", shape));
  }
  return Embedding(std::move(table));
}

// region: embedding-forward
std::expected<autograd::TensorValue, NnError> Embedding::forward(
    const autograd::TokenGrid& ids) const {
  // ids: [B,T] -> [B,T,d_model]
  const std::string stage = stage_of(table_.name);
  LLMFS_TRY(check_ids(ids, vocab_size(), stage));
  return LLMFS_TRY_AT(stage, autograd::embedding(table_.value, ids));
}
// endregion: embedding-forward

std::expected<tensor::Tensor, NnError> Embedding::row(text::TokenId id) const {
  const autograd::TokenGrid one{1, 1, {id}};
  LLMFS_TRY(check_ids(one, vocab_size(), stage_of(table_.name)));
  const tensor::Tensor table =
      LLMFS_TRY_AT(stage_of(table_.name), table_.value.value());
  const auto start =
      table.values().begin() +
      static_cast<std::ptrdiff_t>(static_cast<std::size_t>(id) * model_width());
  auto row = tensor::Tensor::from(
      tensor::Shape{model_width()},
      std::vector<double>(start, start + static_cast<std::ptrdiff_t>(model_width())));
  return std::move(*row);  // the count matches the shape
}

std::expected<std::vector<std::size_t>, NnError> Embedding::row_reads(
    const autograd::TokenGrid& ids) const {
  LLMFS_TRY(check_ids(ids, vocab_size(), stage_of(table_.name)));
  std::vector<std::size_t> reads(vocab_size(), 0);
  for (const auto id : ids.ids)
    ++reads[static_cast<std::size_t>(id)];
  return reads;
}

}  // namespace llmfs::nn
