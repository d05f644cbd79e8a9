// Chapter 4
#pragma once
/// \file
/// \brief Decoding token ids one push at a time (a model emits one token per step): the
/// bytes of a UTF-8 character split across tokens are held until the character is
/// whole, so every piece handed out is text (Chapter 4; UTF-8 from Chapter 1).

#include <cstddef>
#include <expected>
#include <span>
#include <string>

#include <llmfs/text/tokenizer.hpp>

namespace llmfs::text {

/// Decodes ids as they arrive (one token at a time from a model, say): bytes that end
/// in the middle of a UTF-8 character are held until the rest of it arrives, so every
/// piece returned is whole UTF-8 text.
class StreamingDecoder {
 public:
  /// A decoder reading ids of `tokenizer`, which must outlive it.
  explicit StreamingDecoder(const Tokenizer& tokenizer) : tokenizer_(&tokenizer) {}

  /// The text completed by `ids`; bytes of an unfinished character stay held.
  /// \return the decode error of the ids, or invalid_utf8 as soon as the bytes can no
  ///         longer become UTF-8; the decoder is then unchanged.
  [[nodiscard]] std::expected<std::string, TokenizerError> push(
      std::span<const TokenId> ids);

  /// Ends the stream: nothing, or invalid_utf8 (truncated) when a character was left
  /// unfinished. The held bytes are dropped either way.
  [[nodiscard]] std::expected<void, TokenizerError> finish();

  /// How many bytes are held, 0–3.
  [[nodiscard]] std::size_t held_bytes() const noexcept { return held_.size(); }

 private:
  const Tokenizer* tokenizer_;
  std::string held_;
};

}  // namespace llmfs::text
