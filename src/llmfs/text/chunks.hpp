// Chapter 3
#pragma once
/// \file
/// \brief The chunking rule byte-level BPE trains and encodes under: a document is cut
/// before every space (0x20) and every newline (0x0A), so each separator begins the
/// chunk that follows it (`"In the\n1"` → `"In"`, `" the"`, `"\n1"`). A merge never
/// crosses a chunk or a document, so no learned token has a separator after its first
/// byte (the rule GPT-2's pre-tokenizer approximates with a regular expression,
/// Radford et al. 2019; Chapter 3).

#include <string_view>
#include <vector>

namespace llmfs::text {

// region: split-chunks
/// True for the bytes a chunk may begin with but never contain after its first byte.
[[nodiscard]] constexpr bool is_chunk_separator(char byte) noexcept {
  return byte == ' ' || byte == '\n';
}

/// The chunks of `document`, in order, as views into it; they concatenate to
/// `document` exactly. An empty document has no chunks.
[[nodiscard]] inline std::vector<std::string_view> split_chunks(
    std::string_view document) {
  std::vector<std::string_view> chunks;
  std::size_t start = 0;
  for (std::size_t i = 1; i < document.size(); ++i) {
    if (is_chunk_separator(document[i])) {
      chunks.push_back(document.substr(start, i - start));
      start = i;
    }
  }
  if (start < document.size()) chunks.push_back(document.substr(start));
  return chunks;
}
// endregion: split-chunks

}  // namespace llmfs::text
