// Chapter 34
#include <numeric>
#include <string>
#include <utility>
#include <vector>

#include <fmt/format.h>

#include <llmfs/eval/ngram_contender.hpp>

namespace llmfs::eval {

// region: ngram-window
models::NgramBatch window_examples(const text::Tokenizer& tokenizer,
                                   std::span<const text::TokenId> targets,
                                   std::size_t context) {
  const bool ends_document = !targets.empty() && targets.back() == kByteEos;
  std::string text;
  for (const auto id : targets.first(targets.size() - (ends_document ? 1 : 0)))
    text.push_back(static_cast<char>(id));
  const std::vector<std::vector<text::TokenId>> window{tokenizer.encode(text)};
  auto examples =
      models::ngram_examples(window, context, tokenizer.bos(), tokenizer.eos());
  if (ends_document) return examples;
  std::vector<std::size_t> rows(window[0].size());  // every row but the EOS row
  std::iota(rows.begin(), rows.end(), std::size_t{0});
  return models::select_rows(examples, rows);
}
// endregion: ngram-window

// region: ngram-loss
Contender ngram_contender(std::string name,
                          std::shared_ptr<const models::NgramMlp> model,
                          std::shared_ptr<const text::Tokenizer> tokenizer,
                          std::size_t window) {
  const std::size_t n = model->config().context;
  auto loss =
      [model, tokenizer, n](
          std::span<const tensor::Tensor>, const training::Batch& batch,
          bool) -> std::expected<training::LossAndGradients, training::ModelFailure> {
    const auto& targets = batch.targets;
    double nats = 0.0;
    for (std::size_t row = 0; row < targets.batch; ++row) {
      const auto bytes =
          std::span(targets.ids).subspan(row * targets.time, targets.time);
      const auto s =
          models::score(*model, window_examples(*tokenizer, bytes, n), 0, 512);
      if (!s)
        return std::unexpected(training::ModelFailure{fmt::format("{}", s.error())});
      nats += s->total_nats;
    }
    // Σ −ln q over the batch's byte positions: times the positions, its total nats
    return training::LossAndGradients{nats / static_cast<double>(targets.ids.size()),
                                      {}};
  };
  auto tokens = [tokenizer, n, window](const training::ExampleSet& set) {
    std::size_t count = 0;
    for (const auto& example : set.examples) {
      const auto& sequence = set.sequences[example.sequence];
      const auto bytes = std::span(sequence).subspan(example.start + 1, window);
      count += window_examples(*tokenizer, bytes, n).targets.batch;
    }
    return count;
  };
  return {std::move(name), std::move(loss), {}, std::move(tokens)};
}
// endregion: ngram-loss

}  // namespace llmfs::eval
