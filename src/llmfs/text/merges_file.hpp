// Chapter 4
#pragma once
/// \file
/// \brief The merges file, the form the course tokenizer is committed in: a header that
/// names the format, the merge count and an FNV-1a 64 hash of the merge lines, then one
/// line per merge; read with a typed error for every way it can be damaged, written
/// atomically (Chapter 4; the grammar is in the chapter's Derive section).

#include <cstdint>
#include <expected>
#include <filesystem>
#include <string>
#include <string_view>

#include <llmfs/text/merges.hpp>
#include <llmfs/text/tokenizer.hpp>

namespace llmfs::text {

/// The version write_merges() writes and read_merges() accepts.
inline constexpr int kMergesFormatVersion = 1;

/// The FNV-1a 64-bit hash of `text` (Fowler, Noll and Vo), the merges file's check.
[[nodiscard]] std::uint64_t fnv1a64(std::string_view text) noexcept;

/// The merges file's text: the header `llmfs-bpe-merges version=1 merges=M
/// fnv1a64=<16 hex digits>` (the hash of everything after the header line), then one
/// line `id left right` per merge in rank order, each ending in a newline.
[[nodiscard]] std::string format_merges(const MergeTable& merges);

/// A merges file's text back to its table; `file` names it in errors.
/// \return bad_header, wrong_version, malformed_line, later_token, truncated or
///         checksum, with the stage `merges file <file> line <N>`.
[[nodiscard]] std::expected<MergeTable, TokenizerError> parse_merges(
    std::string_view text, std::string_view file);

/// Reads a merges file written by write_merges().
/// \return missing_file, or any error of parse_merges() naming `path`.
[[nodiscard]] std::expected<MergeTable, TokenizerError> read_merges(
    const std::filesystem::path& path);

/// Writes format_merges(merges) to `path` atomically: a temporary file beside it,
/// then a rename, so a reader never sees half a file.
/// \return write_failed naming the file; `path` is then untouched.
[[nodiscard]] std::expected<void, TokenizerError> write_merges(
    const std::filesystem::path& path, const MergeTable& merges);

}  // namespace llmfs::text
