// Chapter 4
#include <algorithm>
#include <utility>

#include <llmfs/core/try.hpp>
#include <llmfs/text/stream_decoder.hpp>

namespace llmfs::text {

namespace {

// region: streaming-checks
// How many bytes at the end of `bytes` are a character still arriving: a lead byte
// followed only by continuation bytes, fewer than it announces. Any other UTF-8 error
// can no longer be repaired by more bytes.
[[nodiscard]] std::expected<std::size_t, TokenizerError> unfinished_tail(
    std::string_view bytes) {
  const auto decoded = decode_utf8(bytes_of(bytes));
  if (decoded) return 0;
  const Utf8Error& error = decoded.error();
  const std::size_t start = error.offset;
  const auto rest = bytes.substr(start + 1);
  const bool arriving =
      error.code == Utf8ErrorCode::truncated &&
      start + sequence_length(static_cast<std::uint8_t>(bytes[start])) > bytes.size() &&
      std::ranges::all_of(
          rest, [](char b) { return is_continuation(static_cast<std::uint8_t>(b)); });
  if (!arriving) return at_stage(std::string("streaming decode"), error);
  return bytes.size() - start;
}
// endregion: streaming-checks

}  // namespace

// region: streaming-decoder
// The held bytes, then the new tokens' bytes: emit all but an unfinished last
// character, and hold that one for the next push.
std::expected<std::string, TokenizerError> StreamingDecoder::push(
    std::span<const TokenId> ids) {
  std::string bytes = held_ + LLMFS_TRY(tokenizer_->decode_bytes(ids));
  const std::size_t tail = LLMFS_TRY(unfinished_tail(bytes));
  held_ = bytes.substr(bytes.size() - tail);
  bytes.resize(bytes.size() - tail);
  return bytes;
}

// The end of the stream: a character still held will never be finished.
std::expected<void, TokenizerError> StreamingDecoder::finish() {
  const std::string held = std::exchange(held_, {});
  const auto decoded = decode_utf8(bytes_of(held));
  if (!decoded)
    return at_stage(std::string("streaming decode, at the end"), decoded.error());
  return {};
}
// endregion: streaming-decoder

}  // namespace llmfs::text
