// Chapter 4
#include <algorithm>
#include <charconv>
#include <optional>

#include <llmfs/core/atomic_file.hpp>
#include <llmfs/core/read_file.hpp>
#include <llmfs/core/try.hpp>
#include <llmfs/text/merges_file.hpp>

namespace llmfs::text {

namespace {

using Code = TokenizerErrorCode;

}  // namespace

std::uint64_t fnv1a64(std::string_view text) noexcept {
  std::uint64_t hash = 0xcbf29ce484222325ull;  // the 64-bit offset basis
  for (char byte : text) {
    hash ^= static_cast<unsigned char>(byte);
    hash *= 0x100000001b3ull;  // the 64-bit FNV prime
  }
  return hash;
}

// One line `id left right` per merge, then the header that names the format, the
// count and the hash of those lines, so a reader can tell a cut or edited file.
std::string format_merges(const MergeTable& table) {
  std::string body;
  for (std::size_t rank = 0; rank < table.merges.size(); ++rank)
    body += fmt::format("{} {} {}\n", MergeTable::token_of_rank(rank),
                        table.merges[rank].left, table.merges[rank].right);
  return fmt::format("llmfs-bpe-merges version={} merges={} fnv1a64={:016x}\n",
                     kMergesFormatVersion, table.merges.size(), fnv1a64(body)) +
         body;
}

namespace {

/// What the header says: how many merges follow, their hash, where they start.
struct MergesHeader {
  std::size_t merges = 0;      ///< M
  std::uint64_t hash = 0;      ///< fnv1a64 of the merge lines
  std::size_t body_start = 0;  ///< the byte offset of line 2
};

/// A number in its one spelling, or nothing: base 10, decimal digits with no leading
/// zero ("0" alone is zero); base 16, exactly 16 lowercase hex digits. So `097`, `+97`,
/// `-0` and an uppercase hash are refused, and a file has one text for one table.
template <class T>
[[nodiscard]] std::optional<T> canonical_number(std::string_view text, int base = 10) {
  const auto digit = [base](char c) {
    return (c >= '0' && c <= '9') || (base == 16 && c >= 'a' && c <= 'f');
  };
  const bool spelled =
      base == 16 ? text.size() == 16 : !text.empty() && (text == "0" || text[0] != '0');
  if (!spelled || !std::ranges::all_of(text, digit)) return std::nullopt;
  T value{};
  const auto [end, error] =
      std::from_chars(text.data(), text.data() + text.size(), value, base);
  if (error != std::errc{} || end != text.data() + text.size()) return std::nullopt;
  return value;
}

/// The fields of a line, separated by single spaces.
[[nodiscard]] std::vector<std::string_view> fields_of(std::string_view line) {
  std::vector<std::string_view> fields;
  for (std::size_t start = 0;;) {
    const std::size_t space = line.find(' ', start);
    fields.push_back(line.substr(start, space - start));
    if (space == std::string_view::npos) return fields;
    start = space + 1;
  }
}

[[nodiscard]] std::string line_stage(std::string_view file, std::size_t line) {
  return fmt::format("merges file {} line {}", file, line);
}

// One header field `key=value`, the key exact and the value in its one spelling.
template <class T>
[[nodiscard]] std::expected<T, TokenizerError> header_field(std::string_view field,
                                                            std::string_view key,
                                                            int base,
                                                            const std::string& stage) {
  if (!field.starts_with(key) || field.size() <= key.size() || field[key.size()] != '=')
    return reject(Code::bad_header, stage,
                  fmt::format("expected '{}=', found '{}'", key, field));
  const auto value = canonical_number<T>(field.substr(key.size() + 1), base);
  if (!value)
    return reject(Code::bad_header, stage,
                  fmt::format("'{}' is not {}", field,
                              base == 16 ? "16 lowercase hex digits"
                                         : "a decimal number without leading zeros"));
  return *value;
}

// Line 1: `llmfs-bpe-merges version=1 merges=M fnv1a64=H`, single spaces, a newline.
[[nodiscard]] std::expected<MergesHeader, TokenizerError> parse_header(
    std::string_view text, std::string_view file) {
  const std::string_view line = text.substr(0, text.find('\n'));
  const auto fields = fields_of(line);
  const std::string stage = line_stage(file, 1);
  if (fields.size() != 4 || fields[0] != "llmfs-bpe-merges")
    return reject(Code::bad_header, stage,
                  fmt::format("expected 'llmfs-bpe-merges version= merges= fnv1a64=', "
                              "found '{}'",
                              line));
  const int version = LLMFS_TRY(header_field<int>(fields[1], "version", 10, stage));
  const auto merges =
      LLMFS_TRY(header_field<std::size_t>(fields[2], "merges", 10, stage));
  const auto hash =
      LLMFS_TRY(header_field<std::uint64_t>(fields[3], "fnv1a64", 16, stage));
  if (version != kMergesFormatVersion)
    return reject(
        Code::wrong_version, stage,
        fmt::format("version {}, this reader knows {}", version, kMergesFormatVersion));
  if (line.size() == text.size())
    return reject(Code::truncated, stage, "no newline after the header");
  return MergesHeader{merges, hash, line.size() + 1};
}

// region: parse-merge-line-checks
// Line r + 2 (rank r): `id left right`, with id = 256 + r and both parts below id.
[[nodiscard]] std::expected<TokenPair, TokenizerError> parse_merge_line(
    std::string_view line, std::size_t rank, std::string_view file,
    std::size_t line_number) {
  const auto fields = fields_of(line);
  const std::string stage = line_stage(file, line_number);
  const TokenId made = MergeTable::token_of_rank(rank);
  std::optional<TokenId> id, left, right;
  if (fields.size() == 3) {
    id = canonical_number<TokenId>(fields[0]);
    left = canonical_number<TokenId>(fields[1]);
    right = canonical_number<TokenId>(fields[2]);
  }
  if (!id || !left || !right)
    return reject(Code::malformed_line, stage,
                  fmt::format("expected 'id left right' in decimal without leading "
                              "zeros, found '{}'",
                              line));
  if (*id != made)
    return reject(Code::malformed_line, stage,
                  fmt::format("id {} where rank {} makes {}", *id, rank, made));
  if (*left >= made || *right >= made)
    return reject(Code::later_token, stage,
                  fmt::format("pair ({}, {}) makes token {}", *left, *right, made));
  return TokenPair{*left, *right};
}
// endregion: parse-merge-line-checks

// The body must hold exactly M lines, each ending in a newline, hashing to H.
[[nodiscard]] std::expected<void, TokenizerError> check_body(std::string_view rest,
                                                             std::size_t line_number,
                                                             const MergesHeader& header,
                                                             std::string_view body,
                                                             std::string_view file) {
  const auto extra = std::ranges::count(rest, '\n') + (rest.ends_with('\n') ? 0 : 1);
  if (!rest.empty())
    return reject(Code::malformed_line, line_stage(file, line_number),
                  fmt::format("header says {} merges, file has {}", header.merges,
                              header.merges + static_cast<std::size_t>(extra)));
  if (fnv1a64(body) != header.hash)
    return reject(Code::checksum, line_stage(file, 1),
                  fmt::format("header fnv1a64={:016x}, lines hash to {:016x}",
                              header.hash, fnv1a64(body)));
  return {};
}

// A line ends in a newline. A file that ends after a whole line, before M merges, has
// too few; a line without its newline was cut mid-line.
[[nodiscard]] std::expected<std::string_view, TokenizerError> next_line(
    std::string_view& rest, std::size_t line_number, std::size_t merges,
    std::string_view file) {
  const std::size_t end = rest.find('\n');
  const std::size_t found = line_number - 2;  // merge lines read so far
  if (end == std::string_view::npos && rest.empty())
    return reject(Code::truncated, line_stage(file, line_number),
                  fmt::format("header says {} merges, file has {}", merges, found));
  if (end == std::string_view::npos)
    return reject(Code::truncated, line_stage(file, line_number),
                  fmt::format("the line has no newline: the file was cut after {} of "
                              "the header's {} merges",
                              found, merges));
  const std::string_view line = rest.substr(0, end);
  rest.remove_prefix(end + 1);
  return line;
}

}  // namespace

// region: parse-merges
// Header, then M merge lines in rank order, then nothing; the hash is checked last, so
// a cut file is reported as cut, not as a checksum mismatch.
std::expected<MergeTable, TokenizerError> parse_merges(std::string_view text,
                                                       std::string_view file) {
  const MergesHeader header = LLMFS_TRY(parse_header(text, file));
  const std::string_view body = text.substr(header.body_start);
  std::string_view rest = body;
  MergeTable table;
  std::size_t line_number = 2;
  for (std::size_t rank = 0; rank < header.merges; ++rank, ++line_number) {
    const auto line = LLMFS_TRY(next_line(rest, line_number, header.merges, file));
    table.merges.push_back(LLMFS_TRY(parse_merge_line(line, rank, file, line_number)));
  }
  LLMFS_TRY(check_body(rest, line_number, header, body, file));
  return table;
}
// endregion: parse-merges

namespace {

// A failed read or write of the merges file as this module's error: its code, the file
// as the stage, the FileError's reason as the detail.
[[nodiscard]] auto merges_file_failure(Code code, const std::filesystem::path& path) {
  return [code, &path](const FileError& error) {
    return TokenizerError{code, fmt::format("merges file {}", path.string()),
                          reason_of(error), std::nullopt};
  };
}

}  // namespace

// region: merges-file
// Read: the whole file (core/read_file), parsed under its name. Write: the atomic
// write of Chapter 2 (core/atomic_file), so a crash never leaves half a table.
std::expected<MergeTable, TokenizerError> read_merges(
    const std::filesystem::path& path) {
  const std::string text = LLMFS_TRY(
      map_file_error(read_file(path), merges_file_failure(Code::missing_file, path)));
  return parse_merges(text, path.string());
}

std::expected<void, TokenizerError> write_merges(const std::filesystem::path& path,
                                                 const MergeTable& merges) {
  return map_file_error(write_file_atomically(path, format_merges(merges)),
                        merges_file_failure(Code::write_failed, path));
}
// endregion: merges-file

}  // namespace llmfs::text
