// Chapter 2
#include <unordered_map>

#include <llmfs/core/read_file.hpp>
#include <llmfs/core/try.hpp>
#include <llmfs/text/corpus.hpp>

namespace llmfs::text {

std::string_view describe(CorpusErrorCode code) noexcept {
  switch (code) {
    case CorpusErrorCode::unreadable: return "cannot read the file";
    case CorpusErrorCode::invalid_utf8: return "invalid UTF-8";
    case CorpusErrorCode::no_documents: return "no documents";
    case CorpusErrorCode::text_before_heading: return "text before the first heading";
    case CorpusErrorCode::empty_title: return "empty title";
    case CorpusErrorCode::empty_document: return "empty document";
    case CorpusErrorCode::duplicate_title: return "duplicate title";
    case CorpusErrorCode::missing_final_newline: return "missing final newline";
  }
  return "unknown corpus error";
}

namespace {

constexpr std::string_view kCorpusStage = "read corpus";
constexpr std::string_view kHeadingMarker = "# ";

// `file F, byte N` and, when the place is inside a document, `, document I "T"`.
std::string corpus_site(std::string_view file, std::size_t offset,
                        const Corpus& corpus) {
  std::string site = fmt::format("file {}, byte {}", file, offset);
  if (!corpus.documents.empty())
    site += fmt::format(", document {} \"{}\"", corpus.documents.size() - 1,
                        corpus.documents.back().title);
  return site;
}

// The documents whose headings lie wholly before `offset` (for naming the document of
// a UTF-8 error before the text has been parsed).
Corpus headings_before(std::string_view bytes, std::size_t offset) {
  Corpus seen;
  for (std::size_t at = 0; at < offset;) {
    const std::size_t end = bytes.find('\n', at);
    if (end == std::string_view::npos || end >= offset) break;
    if (bytes.substr(at).starts_with(kHeadingMarker))
      seen.documents.push_back({std::string(bytes.substr(at + 2, end - at - 2)), {}});
    at = end + 1;
  }
  return seen;
}

// Every byte must be UTF-8 (Chapter 1's decoder); its error becomes the cause.
[[nodiscard]] std::expected<void, CorpusError> check_corpus_utf8(
    std::string_view bytes, std::string_view file) {
  const auto decoded = decode_utf8(bytes_of(bytes));
  if (!decoded) {
    const std::size_t offset = decoded.error().offset;
    return std::unexpected(CorpusError{
        CorpusErrorCode::invalid_utf8, std::string(kCorpusStage),
        corpus_site(file, offset, headings_before(bytes, offset)), decoded.error()});
  }
  return {};
}

// region: corpus-line-checks
// A heading needs a title nobody used before; the document above it needs text.
[[nodiscard]] std::expected<void, CorpusError> check_corpus_heading(
    const Corpus& corpus, std::string_view title, std::size_t offset,
    std::size_t previous_heading, std::string_view file,
    const std::unordered_map<std::string, std::size_t>& first_use) {
  if (!corpus.documents.empty() && corpus.documents.back().text.empty())
    return reject(CorpusErrorCode::empty_document, kCorpusStage,
                  corpus_site(file, previous_heading, corpus));
  if (title.empty())
    return reject(CorpusErrorCode::empty_title, kCorpusStage,
                  fmt::format("file {}, byte {}, document {}", file, offset,
                              corpus.documents.size()));
  if (const auto used = first_use.find(std::string(title)); used != first_use.end())
    return reject(
        CorpusErrorCode::duplicate_title, kCorpusStage,
        fmt::format("file {}, byte {}, document {} \"{}\", first used by "
                    "document {}",
                    file, offset, corpus.documents.size(), title, used->second));
  return {};
}

// A line of text needs a heading above it.
[[nodiscard]] std::expected<void, CorpusError> check_corpus_text_line(
    const Corpus& corpus, std::size_t offset, std::string_view file) {
  if (corpus.documents.empty())
    return reject(CorpusErrorCode::text_before_heading, kCorpusStage,
                  corpus_site(file, offset, corpus));
  return {};
}
// endregion: corpus-line-checks

// At the end: some document, the last one not empty, the last byte a newline.
[[nodiscard]] std::expected<void, CorpusError> check_corpus_end(
    const Corpus& corpus, std::string_view bytes, std::size_t last_heading,
    std::string_view file) {
  if (corpus.documents.empty())
    return reject(CorpusErrorCode::no_documents, kCorpusStage,
                  fmt::format("file {}, byte {}", file, bytes.size()));
  if (corpus.documents.back().text.empty())
    return reject(CorpusErrorCode::empty_document, kCorpusStage,
                  corpus_site(file, last_heading, corpus));
  if (!bytes.ends_with('\n'))
    return reject(CorpusErrorCode::missing_final_newline, kCorpusStage,
                  corpus_site(file, bytes.size(), corpus));
  return {};
}

}  // namespace

// region: parse-corpus
// Line by line: a line that starts with "# " opens a document, any other line is
// appended to the open one. The checks run in file order, so the error returned is
// the first one in the file; nothing is returned with it.
std::expected<Corpus, CorpusError> parse_corpus(std::string_view bytes,
                                                std::string_view file) {
  LLMFS_TRY(check_corpus_utf8(bytes, file));
  Corpus corpus;
  std::unordered_map<std::string, std::size_t> first_use;  // title -> document index
  std::size_t heading = 0;                                 // offset of the open heading
  for (std::size_t at = 0; at < bytes.size();) {
    const std::size_t newline = bytes.find('\n', at);
    const std::size_t next =
        newline == std::string_view::npos ? bytes.size() : newline + 1;
    const std::string_view line = bytes.substr(at, next - at);  // with its '\n'
    if (line.starts_with(kHeadingMarker)) {
      std::string title(line.substr(2, line.size() - 2 - line.ends_with('\n')));
      LLMFS_TRY(check_corpus_heading(corpus, title, at, heading, file, first_use));
      first_use.emplace(title, corpus.documents.size());
      corpus.documents.push_back({std::move(title), {}});
      heading = at;
    } else {
      LLMFS_TRY(check_corpus_text_line(corpus, at, file));
      corpus.documents.back().text += line;
    }
    at = next;
  }
  LLMFS_TRY(check_corpus_end(corpus, bytes, heading, file));
  return corpus;
}
// endregion: parse-corpus

namespace {

// A failed read as this module's error, the FileError's reason in the detail.
[[nodiscard]] auto corpus_file_failure(const std::filesystem::path& path) {
  return [&path](const FileError& error) {
    return CorpusError{CorpusErrorCode::unreadable, std::string(kCorpusStage),
                       fmt::format("file {}: {}", path.string(), reason_of(error)),
                       std::nullopt};
  };
}

}  // namespace

// region: read-corpus
// The whole file (a folder, a FIFO or a failed read is a FileError, said in the
// detail), then parse_corpus() under the name the caller gave.
std::expected<Corpus, CorpusError> read_corpus(const std::filesystem::path& path) {
  const std::string bytes =
      LLMFS_TRY(map_file_error(read_file(path), corpus_file_failure(path)));
  return parse_corpus(bytes, path.string());
}
// endregion: read-corpus

// The file format again: a heading line, then the text, per document.
std::string corpus_text(const Corpus& corpus) {
  std::string text;
  for (const Document& document : corpus.documents)
    text += fmt::format("{}{}\n{}", kHeadingMarker, document.title, document.text);
  return text;
}

std::size_t document_bytes(const Document& document) noexcept {
  return kHeadingMarker.size() + document.title.size() + 1 + document.text.size();
}

}  // namespace llmfs::text
