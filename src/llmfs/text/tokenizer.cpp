// Chapter 4
#include <algorithm>
#include <charconv>
#include <fstream>
#include <functional>
#include <iterator>
#include <optional>
#include <queue>
#include <system_error>
#include <utility>

#include <llmfs/core/try.hpp>
#include <llmfs/text/chunks.hpp>
#include <llmfs/text/tokenizer.hpp>

namespace llmfs::text {

std::string_view describe(TokenizerErrorCode code) noexcept {
  switch (code) {
    case TokenizerErrorCode::unknown_id: return "token id out of range";
    case TokenizerErrorCode::special_token: return "special token has no bytes";
    case TokenizerErrorCode::invalid_utf8: return "not UTF-8 text";
    case TokenizerErrorCode::later_token: return "merge uses a token not made yet";
    case TokenizerErrorCode::duplicate_merge: return "pair merged twice";
    case TokenizerErrorCode::missing_file: return "cannot open merges file";
    case TokenizerErrorCode::bad_header: return "bad header";
    case TokenizerErrorCode::wrong_version: return "unknown format version";
    case TokenizerErrorCode::malformed_line: return "malformed merge line";
    case TokenizerErrorCode::truncated: return "file is truncated";
    case TokenizerErrorCode::checksum: return "checksum mismatch";
    case TokenizerErrorCode::write_failed: return "cannot write merges file";
  }
  return "unknown tokenizer error";
}

namespace {

using Code = TokenizerErrorCode;

/// A pair as one 64-bit key: left in the high half, right in the low half.
[[nodiscard]] constexpr std::uint64_t pair_key(TokenId left, TokenId right) noexcept {
  return (std::uint64_t{static_cast<std::uint32_t>(left)} << 32) |
         static_cast<std::uint32_t>(right);
}

/// A token id that no merge makes: "this pair is not in the table".
constexpr TokenId kNoMerge = -1;
/// The token left at a position whose symbol was merged into its left neighbour.
constexpr TokenId kMergedAway = -1;

// region: tokenizer-create-checks
// Merge r may only join tokens that exist before it, 0 … 256+r−1, and each pair may be
// learned once: a repeated pair could never be applied at its second rank.
[[nodiscard]] std::expected<void, TokenizerError> check_merges(
    const MergeTable& table) {
  std::unordered_map<std::uint64_t, std::size_t> seen;
  for (std::size_t rank = 0; rank < table.merges.size(); ++rank) {
    const auto [left, right] = table.merges[rank];
    const TokenId made = MergeTable::token_of_rank(rank);
    const std::string stage = fmt::format("merge rank {}", rank);
    if (left < 0 || right < 0 || left >= made || right >= made)
      return reject(Code::later_token, stage,
                    fmt::format("pair ({}, {}) makes token {}", left, right, made));
    const auto [at, inserted] = seen.emplace(pair_key(left, right), rank);
    if (!inserted)
      return reject(
          Code::duplicate_merge, stage,
          fmt::format("pair ({}, {}) is already rank {}", left, right, at->second));
  }
  return {};
}
// endregion: tokenizer-create-checks

}  // namespace

// region: tokenizer-create
// The rank of every pair, for encoding, and the bytes of every token, for decoding:
// a merged token's bytes are its left part's followed by its right part's.
std::expected<Tokenizer, TokenizerError> Tokenizer::create(MergeTable merges) {
  LLMFS_TRY(check_merges(merges));
  Tokenizer t;
  t.merges_ = std::move(merges);
  t.pieces_.reserve(t.vocab_size());
  for (int byte = 0; byte < kByteTokens; ++byte)
    t.pieces_.emplace_back(1, static_cast<char>(byte));
  for (std::size_t rank = 0; rank < t.merges_.merges.size(); ++rank) {
    const auto [left, right] = t.merges_.merges[rank];
    t.ranks_.emplace(pair_key(left, right), static_cast<TokenId>(rank));
    std::string piece = t.pieces_[left] + t.pieces_[right];
    t.pieces_.push_back(std::move(piece));
  }
  t.pieces_.emplace_back();  // BOS: a boundary, no bytes
  t.pieces_.emplace_back();  // EOS
  return t;
}
// endregion: tokenizer-create

TokenId Tokenizer::rank_of(TokenPair pair) const noexcept {
  const auto found = ranks_.find(pair_key(pair.left, pair.right));
  return found == ranks_.end() ? kNoMerge : found->second;
}

std::string_view Tokenizer::token_bytes(TokenId id) const {
  return pieces_[static_cast<std::size_t>(id)];
}

namespace {

// region: merge-candidate
/// An adjacent pair that a merge could join: its rank, the positions of its two
/// symbols in the chunk, and the tokens they held when it was queued (so a pair that
/// an earlier merge changed is recognised as stale and skipped).
struct MergeCandidate {
  TokenId rank;
  int left, right;
  TokenId left_token, right_token;

  /// Lower rank first; among equal ranks the leftmost pair.
  friend bool operator>(const MergeCandidate& a, const MergeCandidate& b) {
    return std::pair(a.rank, a.left) > std::pair(b.rank, b.left);
  }
};
// endregion: merge-candidate

/// The chunk's tokens after merge `rank` made a token at byte position `at`.
MergeStep step_of(TokenId rank, int at, const std::vector<TokenId>& token,
                  const std::vector<int>& next) {
  MergeStep step{rank, 0, {}};
  for (int i = 0; i < static_cast<int>(token.size()); i = next[i]) {
    if (i == at) step.position = step.tokens.size();
    step.tokens.push_back(token[i]);
  }
  return step;
}

}  // namespace

// region: encode-chunk
// One chunk [n bytes] -> its tokens. The symbols form a linked list over the byte
// positions; a min-heap holds every adjacent pair the table can merge. Pop the lowest
// rank (leftmost on a tie), join its two symbols, queue the two new neighbours' pairs.
void Tokenizer::encode_chunk(std::string_view chunk, std::vector<TokenId>& out,
                             std::vector<MergeStep>* steps) const {
  const int n = static_cast<int>(chunk.size());
  std::vector<TokenId> token(n);
  std::vector<int> prev(n), next(n);
  for (int i = 0; i < n; ++i) {
    token[i] = static_cast<unsigned char>(chunk[i]);
    prev[i] = i - 1;
    next[i] = i + 1;  // n: the end of the list
  }
  std::priority_queue<MergeCandidate, std::vector<MergeCandidate>, std::greater<>> heap;
  const auto offer = [&](int left) {
    if (left < 0 || next[left] >= n) return;
    const int right = next[left];
    const TokenId rank = rank_of({token[left], token[right]});
    if (rank != kNoMerge) heap.push({rank, left, right, token[left], token[right]});
  };
  for (int i = 0; i + 1 < n; ++i)
    offer(i);
  while (!heap.empty()) {
    const MergeCandidate c = heap.top();
    heap.pop();
    if (token[c.left] != c.left_token || next[c.left] != c.right ||
        token[c.right] != c.right_token)
      continue;  // stale: a merge since it was queued changed one of its symbols
    token[c.left] = MergeTable::token_of_rank(static_cast<std::size_t>(c.rank));
    token[c.right] = kMergedAway;
    next[c.left] = next[c.right];
    if (next[c.left] < n) prev[next[c.left]] = c.left;
    offer(prev[c.left]);
    offer(c.left);
    if (steps) steps->push_back(step_of(c.rank, c.left, token, next));
  }
  for (int i = 0; i < n; i = next[i])
    out.push_back(token[i]);
}
// endregion: encode-chunk

std::vector<MergeStep> Tokenizer::encode_steps(std::string_view chunk) const {
  std::vector<MergeStep> steps;
  std::vector<TokenId> ignored;
  encode_chunk(chunk, ignored, &steps);
  return steps;
}

// region: encode
// Text -> ids: every chunk on its own (a merge never crosses a chunk), concatenated.
std::vector<TokenId> Tokenizer::encode(std::string_view text) const {
  std::vector<TokenId> ids;
  ids.reserve(text.size() / 3);
  for (std::string_view chunk : split_chunks(text))
    encode_chunk(chunk, ids);
  return ids;
}
// endregion: encode

// region: encode-naive
// The rule as a reader states it, without a heap: find the lowest rank among the
// chunk's adjacent pairs, merge every occurrence of that pair left to right, repeat.
std::vector<TokenId> Tokenizer::encode_naive(std::string_view text) const {
  std::vector<TokenId> ids;
  for (std::string_view chunk : split_chunks(text)) {
    std::vector<TokenId> symbols;
    for (char byte : chunk)
      symbols.push_back(static_cast<unsigned char>(byte));
    while (true) {
      TokenId best = kNoMerge;
      for (std::size_t i = 0; i + 1 < symbols.size(); ++i) {
        const TokenId rank = rank_of({symbols[i], symbols[i + 1]});
        if (rank != kNoMerge && (best == kNoMerge || rank < best)) best = rank;
      }
      if (best == kNoMerge) break;
      const TokenPair pair = merges_.merges[static_cast<std::size_t>(best)];
      std::vector<TokenId> merged;
      for (std::size_t i = 0; i < symbols.size(); ++i) {
        const bool hit = i + 1 < symbols.size() && symbols[i] == pair.left &&
                         symbols[i + 1] == pair.right;
        merged.push_back(hit ? kByteTokens + best : symbols[i]);
        if (hit) ++i;
      }
      symbols = std::move(merged);
    }
    ids.insert(ids.end(), symbols.begin(), symbols.end());
  }
  return ids;
}
// endregion: encode-naive

// region: decode-checks
// An id must name a token of the vocabulary, and BOS and EOS mark boundaries, not text.
std::expected<void, TokenizerError> Tokenizer::check_decodable(
    TokenId id, std::size_t index) const {
  const std::string stage = fmt::format("decode token {}", index);
  if (id < 0 || static_cast<std::size_t>(id) >= vocab_size())
    return reject(Code::unknown_id, stage,
                  fmt::format("id {} with V = {}", id, vocab_size()));
  if (id == bos() || id == eos())
    return reject(Code::special_token, stage,
                  fmt::format("id {} is {}", id, id == bos() ? "BOS" : "EOS"));
  return {};
}

// Bytes that are not UTF-8: the Utf8Error (a byte offset), wrapped with the index of
// the token whose bytes hold that offset.
std::expected<void, TokenizerError> Tokenizer::check_utf8(
    std::string_view bytes, std::span<const TokenId> ids) const {
  const auto decoded = decode_utf8(bytes_of(bytes));
  if (decoded) return {};
  std::size_t index = 0;
  for (std::size_t end = 0; index < ids.size(); ++index) {
    end += pieces_[static_cast<std::size_t>(ids[index])].size();
    if (end > decoded.error().offset) break;
  }
  return at_stage(fmt::format("decode token {}", index), decoded.error());
}
// endregion: decode-checks

// region: decode
// Ids -> bytes, each token's bytes in order; decode() then insists on UTF-8.
std::expected<std::string, TokenizerError> Tokenizer::decode_bytes(
    std::span<const TokenId> ids) const {
  std::string bytes;
  for (std::size_t i = 0; i < ids.size(); ++i) {
    LLMFS_TRY(check_decodable(ids[i], i));
    bytes += pieces_[static_cast<std::size_t>(ids[i])];
  }
  return bytes;
}

std::expected<std::string, TokenizerError> Tokenizer::decode(
    std::span<const TokenId> ids) const {
  std::string bytes = LLMFS_TRY(decode_bytes(ids));
  LLMFS_TRY(check_utf8(bytes, ids));
  return bytes;
}
// endregion: decode

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

std::uint64_t fnv1a64(std::string_view text) noexcept {
  std::uint64_t hash = 0xcbf29ce484222325ull;  // the 64-bit offset basis
  for (char byte : text) {
    hash ^= static_cast<unsigned char>(byte);
    hash *= 0x100000001b3ull;  // the 64-bit FNV prime
  }
  return hash;
}

// region: format-merges
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
// endregion: format-merges

namespace {

/// What the header says: how many merges follow, their hash, where they start.
struct MergesHeader {
  std::size_t merges = 0;      ///< M
  std::uint64_t hash = 0;      ///< fnv1a64 of the merge lines
  std::size_t body_start = 0;  ///< the byte offset of line 2
};

/// A whole decimal (or, with base 16, hex) number, or nothing.
template <class T>
[[nodiscard]] std::optional<T> whole_number(std::string_view text, int base = 10) {
  T value{};
  const auto [end, error] =
      std::from_chars(text.data(), text.data() + text.size(), value, base);
  if (text.empty() || error != std::errc{} || end != text.data() + text.size())
    return std::nullopt;
  return value;
}

/// The number in a field `key=value`, or nothing.
template <class T>
[[nodiscard]] std::optional<T> number_field(std::string_view field,
                                            std::string_view key, int base = 10) {
  if (!field.starts_with(key) || field.size() <= key.size() || field[key.size()] != '=')
    return std::nullopt;
  return whole_number<T>(field.substr(key.size() + 1), base);
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

// region: parse-header-checks
// Line 1: `llmfs-bpe-merges version=1 merges=M fnv1a64=H`, H 16 hex digits, newline.
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
  const auto version = number_field<int>(fields[1], "version");
  const auto merges = number_field<std::size_t>(fields[2], "merges");
  const auto hash = fields[3].size() == 24
                        ? number_field<std::uint64_t>(fields[3], "fnv1a64", 16)
                        : std::nullopt;
  if (!version || !merges || !hash)
    return reject(Code::bad_header, stage, fmt::format("cannot read '{}'", line));
  if (*version != kMergesFormatVersion)
    return reject(Code::wrong_version, stage,
                  fmt::format("version {}, this reader knows {}", *version,
                              kMergesFormatVersion));
  if (line.size() == text.size())
    return reject(Code::truncated, stage, "no newline after the header");
  return MergesHeader{*merges, *hash, line.size() + 1};
}
// endregion: parse-header-checks

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
    id = whole_number<TokenId>(fields[0]);
    left = whole_number<TokenId>(fields[1]);
    right = whole_number<TokenId>(fields[2]);
  }
  if (!id || !left || !right || *left < 0 || *right < 0)
    return reject(Code::malformed_line, stage,
                  fmt::format("expected 'id left right', found '{}'", line));
  if (*id != made)
    return reject(Code::malformed_line, stage,
                  fmt::format("id {} where rank {} makes {}", *id, rank, made));
  if (*left >= made || *right >= made)
    return reject(Code::later_token, stage,
                  fmt::format("pair ({}, {}) makes token {}", *left, *right, made));
  return TokenPair{*left, *right};
}
// endregion: parse-merge-line-checks

// region: parse-merges-checks
// The body must hold exactly M lines, each ending in a newline, hashing to H.
[[nodiscard]] std::expected<void, TokenizerError> check_body(std::string_view rest,
                                                             std::size_t line_number,
                                                             const MergesHeader& header,
                                                             std::string_view body,
                                                             std::string_view file) {
  if (!rest.empty())
    return reject(Code::malformed_line, line_stage(file, line_number),
                  fmt::format("more lines than the header's {} merges", header.merges));
  if (fnv1a64(body) != header.hash)
    return reject(Code::checksum, line_stage(file, 1),
                  fmt::format("header fnv1a64={:016x}, lines hash to {:016x}",
                              header.hash, fnv1a64(body)));
  return {};
}

// A line ends in a newline; a file that stops without one, or before M merges, was cut.
[[nodiscard]] std::expected<std::string_view, TokenizerError> next_line(
    std::string_view& rest, std::size_t line_number, std::size_t merges,
    std::string_view file) {
  const std::size_t end = rest.find('\n');
  if (end == std::string_view::npos)
    return reject(Code::truncated, line_stage(file, line_number),
                  fmt::format("{} ends before its last newline; header says {} merges",
                              rest.empty() ? "file" : "line", merges));
  const std::string_view line = rest.substr(0, end);
  rest.remove_prefix(end + 1);
  return line;
}
// endregion: parse-merges-checks

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

// region: merges-file-checks
// The file's bytes, or missing_file naming it.
[[nodiscard]] std::expected<std::string, TokenizerError> read_text(
    const std::filesystem::path& path) {
  std::ifstream in(path, std::ios::binary);
  if (!in)
    return reject(Code::missing_file, fmt::format("merges file {}", path.string()));
  return std::string((std::istreambuf_iterator<char>(in)),
                     std::istreambuf_iterator<char>());
}

// `text` into `temp`; on failure nothing is left behind.
[[nodiscard]] std::expected<void, TokenizerError> write_text(
    const std::filesystem::path& temp, std::string_view text,
    const std::filesystem::path& target) {
  std::ofstream out(temp, std::ios::binary | std::ios::trunc);
  out.write(text.data(), static_cast<std::streamsize>(text.size()));
  out.close();
  std::error_code ignored;
  if (!out && (std::filesystem::remove(temp, ignored), true))
    return reject(Code::write_failed, fmt::format("merges file {}", target.string()),
                  fmt::format("cannot write {}", temp.string()));
  return {};
}

// One rename: a reader sees the old file or the new one, never half of either.
[[nodiscard]] std::expected<void, TokenizerError> replace_file(
    const std::filesystem::path& temp, const std::filesystem::path& target) {
  std::error_code error;
  std::filesystem::rename(temp, target, error);
  if (error && (std::filesystem::remove(temp, error), true))
    return reject(Code::write_failed, fmt::format("merges file {}", target.string()),
                  "cannot rename the temporary file");
  return {};
}
// endregion: merges-file-checks

}  // namespace

// region: merges-file
// Read: the whole file, parsed under its name. Write: a temporary file beside the
// target, then a rename.
std::expected<MergeTable, TokenizerError> read_merges(
    const std::filesystem::path& path) {
  const std::string text = LLMFS_TRY(read_text(path));
  return parse_merges(text, path.string());
}

std::expected<void, TokenizerError> write_merges(const std::filesystem::path& path,
                                                 const MergeTable& merges) {
  std::filesystem::path temp = path;
  temp += ".tmp";
  LLMFS_TRY(write_text(temp, format_merges(merges), path));
  LLMFS_TRY(replace_file(temp, path));
  return {};
}
// endregion: merges-file

}  // namespace llmfs::text
