// Chapter 34
#pragma once
/// \file
/// \brief Chapter 23's neural n-gram, which reads BPE tokens, as a contender of Chapter
/// 34's final table, whose test windows are bytes: each window's target bytes are
/// encoded again by Chapter 4's tokenizer and scored as n-gram examples, so that its
/// total nats and its bits per byte are over the same bytes as every other row.

#include <cstddef>
#include <memory>
#include <span>
#include <string>

#include <llmfs/eval/final_evaluation.hpp>
#include <llmfs/models/ngram_mlp.hpp>
#include <llmfs/text/tokenizer.hpp>

namespace llmfs::eval {

/// EOS of the byte tokens the test windows hold (bytes 0–255, BOS 256, EOS 257).
inline constexpr text::TokenId kByteEos = 257;

/// The n-gram examples of one test window: its target bytes `targets` (byte ids; EOS
/// only as the last, when the window ends its document) encoded by `tokenizer` from the
/// first byte, framed as ngram_examples() frames a document with `context` tokens of
/// context (BOS before the first token); the EOS row is kept only when the window's
/// targets end with kByteEos.
[[nodiscard]] models::NgramBatch window_examples(const text::Tokenizer& tokenizer,
                                                 std::span<const text::TokenId> targets,
                                                 std::size_t context);

/// `model` as a contender named `name` on byte windows of T = `window`: its loss is a
/// batch's Σ −ln q over every row's window_examples(), divided by the batch's byte
/// positions (so loss × positions is its total nats); its `tokens` counts those rows
/// over every test example. A failing forward pass is a ModelFailure naming its error.
[[nodiscard]] Contender ngram_contender(
    std::string name, std::shared_ptr<const models::NgramMlp> model,
    std::shared_ptr<const text::Tokenizer> tokenizer, std::size_t window);

}  // namespace llmfs::eval
