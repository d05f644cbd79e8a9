// Chapter 2
#pragma once
/// \file
/// \brief Document-level train/validation/test partitions: a deterministic rule that
/// assigns each document by a hash of its title, a committed manifest that freezes the
/// result (tools/corpus-partitions.tsv) before any tokenizer sees the text, and a
/// reader that checks the manifest against the corpus (Chapter 2).
///
/// The rule: the first 8 bytes of SHA-256(title) (FIPS 180-4, computed by OpenSSL's
/// libcrypto), read as a big-endian unsigned 64-bit integer h; the bucket is h mod 100;
/// buckets 0–89 are train, 90–94 validation, 95–99 test (target fractions 90/5/5).

#include <array>
#include <cstddef>
#include <cstdint>
#include <expected>
#include <filesystem>
#include <string>
#include <string_view>
#include <vector>

#include <llmfs/core/error.hpp>
#include <llmfs/text/corpus.hpp>

namespace llmfs::text {

// region: partition-types
/// The three partitions of a corpus.
enum class Split { train, validation, test };

/// `"train"`, `"validation"` or `"test"` (the manifest's spelling).
[[nodiscard]] std::string_view describe(Split split) noexcept;

/// The document indices of each partition, ascending. Together they list every
/// document of the corpus exactly once.
struct Partitions {
  std::vector<std::size_t> train;       ///< indices into Corpus::documents, ascending
  std::vector<std::size_t> validation;  ///< indices into Corpus::documents, ascending
  std::vector<std::size_t> test;        ///< indices into Corpus::documents, ascending

  /// Equal when all three lists are equal.
  friend bool operator==(const Partitions&, const Partitions&) = default;
};
// endregion: partition-types

/// The indices of `split` in `partitions`.
[[nodiscard]] const std::vector<std::size_t>& indices(const Partitions& partitions,
                                                      Split split) noexcept;

/// The three splits in the order the manifest and the reports list them.
inline constexpr std::array<Split, 3> kSplits{Split::train, Split::validation,
                                              Split::test};

/// How many buckets a title hashes into.
inline constexpr std::uint64_t kBuckets = 100;
/// Buckets below this are train (90 of 100).
inline constexpr std::uint64_t kTrainBuckets = 90;
/// Buckets below this and not train are validation (5 of 100); the rest are test.
inline constexpr std::uint64_t kTrainValidationBuckets = 95;
/// The rule as the manifest records it.
inline constexpr std::string_view kPartitionRule =
    "sha256(title)[0:8] big-endian mod 100: train 0-89, validation 90-94, test 95-99";

/// SHA-256 of `bytes` as 64 lower-case hex digits (OpenSSL libcrypto, EVP_Digest).
/// Empty only if libcrypto itself fails, which no caller can mistake for a hash.
[[nodiscard]] std::string sha256_hex(std::string_view bytes);

/// SHA-256 of the corpus file's bytes, corpus_text(corpus).
[[nodiscard]] std::string corpus_sha256(const Corpus& corpus);

// region: partition-errors
/// What is wrong with a manifest (or, for hash_failed, with computing the rule).
enum class PartitionErrorCode {
  unreadable,        ///< the manifest is missing or cannot be read
  unwritable,        ///< the manifest could not be written (write_manifest)
  corpus,            ///< reading the corpus failed (the cause is its CorpusError)
  malformed_line,    ///< a line that is not `key<TAB>value` or `title<TAB>split`
  missing_hash,      ///< no `corpus_sha256` line before the documents
  corpus_mismatch,   ///< the manifest was made for a corpus with another SHA-256
  unknown_split,     ///< a split other than train, validation, test
  unknown_document,  ///< a title the corpus does not have
  duplicate_entry,   ///< a title listed twice
  missing_document,  ///< a corpus document the manifest does not list
  hash_failed,       ///< libcrypto could not compute a title's SHA-256 (title_bucket)
};

/// The fixed description of a code, e.g. `"document listed twice"`.
[[nodiscard]] std::string_view describe(PartitionErrorCode code) noexcept;

/// A manifest error: the code, the stage (`"read partitions"`, `"write partitions"`,
/// `"partition rule"`),
/// a detail naming the manifest, the line (counted from 1) and what was wrong, and for
/// PartitionErrorCode::corpus the CorpusError it wraps. Formats as `read partitions:
/// document listed twice (manifest m.tsv, line 7: "Faces 1" first listed on line 5)`.
using PartitionError =
    StageError<PartitionErrorCode, PartitionErrorCode::corpus, CorpusError>;
// endregion: partition-errors

/// A title's bucket, 0–99: the first 8 bytes of SHA-256(title), big-endian, mod 100.
/// \return the bucket, or PartitionErrorCode::hash_failed naming the title if
///         libcrypto itself fails (it cannot allocate or load SHA-256; no input bytes
///         make it fail).
[[nodiscard]] std::expected<std::uint64_t, PartitionError> title_bucket(
    std::string_view title);

/// The split a bucket belongs to (0–89 train, 90–94 validation, 95–99 test).
[[nodiscard]] Split split_of_bucket(std::uint64_t bucket) noexcept;

/// The partitions of a corpus whose document d has split `split_of[d]`: three
/// ascending lists of indices that together hold 0 … split_of.size() − 1 once each.
[[nodiscard]] Partitions collect_partitions(const std::vector<Split>& split_of);

/// Applies the rule to every document. The split of a document depends on its title
/// alone, so reordering the corpus moves indices but never a document's split.
/// \return the partitions, or the first title_bucket() error.
[[nodiscard]] std::expected<Partitions, PartitionError> assign_partitions(
    const Corpus& corpus);

/// The documents of one split, in corpus order (what Chapter 3 trains on).
[[nodiscard]] Corpus documents_of(const Corpus& corpus, const Partitions& partitions,
                                  Split split);

/// The manifest text for `partitions` of `corpus`: comment lines, `corpus_sha256`,
/// `rule` and `documents` header lines, then one `title<TAB>split` line per document in
/// corpus order.
[[nodiscard]] std::string format_manifest(const Corpus& corpus,
                                          const Partitions& partitions);

/// Writes format_manifest() to `path` atomically: a temporary file beside it, then a
/// rename, so a reader sees the old manifest or the new one, never half of one.
/// \return PartitionErrorCode::unwritable naming the file when it cannot be written
///         (the old manifest is then unchanged).
[[nodiscard]] std::expected<void, PartitionError> write_manifest(
    const std::filesystem::path& path, const Corpus& corpus,
    const Partitions& partitions);

/// Reads the manifest at `path` and checks it against `corpus`: its `corpus_sha256`
/// must be corpus_sha256(corpus), and every document must be listed exactly once.
/// \return the partitions, or the first PartitionError in the manifest's line order
///         (PartitionErrorCode::missing_document after the last line).
[[nodiscard]] std::expected<Partitions, PartitionError> read_partitions(
    const std::filesystem::path& manifest, const Corpus& corpus);

/// Parses manifest text already in memory; `manifest` is the name its errors carry.
[[nodiscard]] std::expected<Partitions, PartitionError> parse_partitions(
    std::string_view text, std::string_view manifest, const Corpus& corpus);

/// A corpus and its checked partitions.
struct PartitionedCorpus {
  Corpus corpus;          ///< the documents, file order
  Partitions partitions;  ///< from the manifest, checked against the corpus
};

/// read_corpus(corpus_path), then read_partitions(manifest_path, corpus).
/// \return a PartitionError; a corpus failure is PartitionErrorCode::corpus with the
///         CorpusError as its cause.
[[nodiscard]] std::expected<PartitionedCorpus, PartitionError> read_partitioned_corpus(
    const std::filesystem::path& corpus_path,
    const std::filesystem::path& manifest_path);

}  // namespace llmfs::text
