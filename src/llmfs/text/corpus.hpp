// Chapter 2
#pragma once
/// \file
/// \brief The corpus reader: a UTF-8 text file of documents, each a heading line
/// `# Title` followed by its lines, read into titled documents with a typed error for
/// every way the file can break the format (Chapter 2; UTF-8 from Chapter 1).
///
/// The format (tools/extract-corpus.py writes the King James text in it):
///
///     # Genesis 1
///     1 In the beginning God created the heaven and the earth.
///     2 And the earth was without form, and void; ...
///
/// Units: offsets are byte offsets into the file, counted from 0; document indices are
/// positions in file order, counted from 0.

#include <cstddef>
#include <expected>
#include <filesystem>
#include <string>
#include <string_view>
#include <vector>

#include <llmfs/core/error.hpp>
#include <llmfs/text/utf8.hpp>

namespace llmfs::text {

// region: corpus-types
/// One document: its heading without the `# ` marker, and the lines under it.
struct Document {
  std::string title;  ///< the heading without "# ", e.g. "Genesis 1"
  std::string
      text;  ///< the lines after the heading, each ending in '\n', as in the file

  /// Equal when title and text are equal.
  friend bool operator==(const Document&, const Document&) = default;
};

/// A corpus: its documents in file order. Titles are unique and no text is empty.
struct Corpus {
  std::vector<Document> documents;  ///< [D], file order

  /// Equal when the documents are equal, in order.
  friend bool operator==(const Corpus&, const Corpus&) = default;
};
// endregion: corpus-types

// region: corpus-errors
/// What is wrong with a corpus file.
enum class CorpusErrorCode {
  unreadable,             ///< the file is missing or cannot be read
  invalid_utf8,           ///< the bytes are not UTF-8 (the cause is Chapter 1's error)
  no_documents,           ///< the file holds no heading at all
  text_before_heading,    ///< a line before the first `# ` heading
  empty_title,            ///< a heading `# ` with nothing after the marker
  empty_document,         ///< a heading with no lines under it
  duplicate_title,        ///< a heading whose title an earlier heading already has
  missing_final_newline,  ///< the last line does not end in '\n'
};

/// The fixed description of a code, e.g. `"duplicate title"`.
[[nodiscard]] std::string_view describe(CorpusErrorCode code) noexcept;

/// A corpus reader's error: the code, the stage `"read corpus"`, a detail naming the
/// file, the byte offset and the document (index and title, when there is one), and
/// for CorpusErrorCode::invalid_utf8 the Utf8Error it wraps. Formats as
/// `read corpus: duplicate title (file tiny.txt, byte 57, document 2 "Faces 1", first
/// used by document 0)`.
using CorpusError =
    StageError<CorpusErrorCode, CorpusErrorCode::invalid_utf8, Utf8Error>;
// endregion: corpus-errors

/// Reads the corpus file at `path`: every byte must be UTF-8 (Chapter 1), every line
/// belongs to the heading above it, and the file ends in '\n'.
/// \return the documents in file order, or the first CorpusError in file order
///         (CorpusErrorCode::unreadable when the file cannot be opened or read).
[[nodiscard]] std::expected<Corpus, CorpusError> read_corpus(
    const std::filesystem::path& path);

/// Parses corpus bytes already in memory; `file` is the name its errors carry.
/// read_corpus() is this function after reading the file.
/// \return as read_corpus(), without CorpusErrorCode::unreadable.
[[nodiscard]] std::expected<Corpus, CorpusError> parse_corpus(std::string_view bytes,
                                                              std::string_view file);

/// The corpus written back in its file format: each document as `# title\n` followed by
/// its text. parse_corpus(corpus_text(c)) == c, and for a file read without error,
/// corpus_text() gives back the file's bytes exactly.
[[nodiscard]] std::string corpus_text(const Corpus& corpus);

/// The bytes one document takes in the file: its heading line and its text.
[[nodiscard]] std::size_t document_bytes(const Document& document) noexcept;

}  // namespace llmfs::text
