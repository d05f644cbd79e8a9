// Chapter 2
#include <optional>
#include <unordered_map>
#include <utility>

#include <llmfs/core/atomic_file.hpp>
#include <llmfs/core/read_file.hpp>
#include <llmfs/core/try.hpp>
#include <llmfs/text/partition.hpp>

#include <openssl/evp.h>

namespace llmfs::text {

std::string_view describe(Split split) noexcept {
  switch (split) {
    case Split::train: return "train";
    case Split::validation: return "validation";
    case Split::test: return "test";
  }
  return "unknown split";
}

std::string_view describe(PartitionErrorCode code) noexcept {
  switch (code) {
    case PartitionErrorCode::unreadable: return "cannot read the manifest";
    case PartitionErrorCode::unwritable: return "cannot write the manifest";
    case PartitionErrorCode::corpus: return "the corpus failed";
    case PartitionErrorCode::malformed_line: return "malformed line";
    case PartitionErrorCode::missing_hash: return "no corpus_sha256 line";
    case PartitionErrorCode::corpus_mismatch: return "made for another corpus";
    case PartitionErrorCode::unknown_split: return "unknown split";
    case PartitionErrorCode::unknown_document: return "document not in the corpus";
    case PartitionErrorCode::duplicate_entry: return "document listed twice";
    case PartitionErrorCode::missing_document: return "document not listed";
    case PartitionErrorCode::hash_failed: return "SHA-256 failed";
  }
  return "unknown partition error";
}

const std::vector<std::size_t>& indices(const Partitions& partitions,
                                        Split split) noexcept {
  switch (split) {
    case Split::validation: return partitions.validation;
    case Split::test: return partitions.test;
    case Split::train: break;
  }
  return partitions.train;
}

namespace {

constexpr std::string_view kReadStage = "read partitions";
constexpr std::string_view kWriteStage = "write partitions";
constexpr std::size_t kDigestBytes = 32;
using Digest = std::array<unsigned char, kDigestBytes>;

// SHA-256 through libcrypto's one-shot digest; nullopt only if libcrypto fails.
std::optional<Digest> sha256_digest(std::string_view bytes) {
  Digest digest{};
  unsigned int length = 0;
  if (EVP_Digest(bytes.data(), bytes.size(), digest.data(), &length, EVP_sha256(),
                 nullptr) != 1 ||
      length != kDigestBytes)
    return std::nullopt;
  return digest;
}

constexpr std::string_view kRuleStage = "partition rule";

// libcrypto's EVP_Digest fails only when it cannot allocate its context or load the
// SHA-256 implementation: never for any input bytes, so no test can provoke it.
[[nodiscard]] Rejection<PartitionErrorCode, std::string_view> reject_hash_failure(
    std::string_view title) {
  return reject(PartitionErrorCode::hash_failed, kRuleStage,
                fmt::format("title \"{}\": libcrypto's SHA-256 failed", title));
}

}  // namespace

std::string sha256_hex(std::string_view bytes) {
  const auto digest = sha256_digest(bytes);
  if (!digest) return {};
  std::string hex;
  for (unsigned char byte : *digest)
    hex += fmt::format("{:02x}", byte);
  return hex;
}

std::string corpus_sha256(const Corpus& corpus) {
  return sha256_hex(corpus_text(corpus));
}

// Each document's split, in corpus order, to three ascending lists of indices.
Partitions collect_partitions(const std::vector<Split>& split_of) {
  Partitions partitions;
  for (std::size_t d = 0; d < split_of.size(); ++d)
    (split_of[d] == Split::train        ? partitions.train
     : split_of[d] == Split::validation ? partitions.validation
                                        : partitions.test)
        .push_back(d);
  return partitions;
}

// region: partition-rule
// The title's hash picks a bucket; the bucket picks the split. Nothing but the title
// goes in, so the split of a document never depends on its neighbours or its position.
std::expected<std::uint64_t, PartitionError> title_bucket(std::string_view title) {
  const std::optional<Digest> digest = sha256_digest(title);
  if (!digest) return reject_hash_failure(title);
  std::uint64_t h = 0;
  for (std::size_t k = 0; k < 8; ++k)  // the first 8 bytes, most significant first
    h = (h << 8) | (*digest)[k];
  return h % kBuckets;
}

Split split_of_bucket(std::uint64_t bucket) noexcept {
  if (bucket < kTrainBuckets) return Split::train;
  if (bucket < kTrainValidationBuckets) return Split::validation;
  return Split::test;
}

std::expected<Partitions, PartitionError> assign_partitions(const Corpus& corpus) {
  std::vector<Split> split_of;
  for (const Document& document : corpus.documents) {
    const std::uint64_t bucket = LLMFS_TRY(title_bucket(document.title));
    split_of.push_back(split_of_bucket(bucket));
  }
  return collect_partitions(split_of);
}
// endregion: partition-rule

Corpus documents_of(const Corpus& corpus, const Partitions& partitions, Split split) {
  Corpus part;
  for (std::size_t d : indices(partitions, split))
    part.documents.push_back(corpus.documents[d]);
  return part;
}

// region: format-manifest
// Comments for the reader (the rule, the sizes), the two header lines, then one
// `title<TAB>split` line per document in corpus order.
std::string format_manifest(const Corpus& corpus, const Partitions& partitions) {
  std::vector<Split> split_of(corpus.documents.size(), Split::train);
  std::string text =
      "# The frozen train/validation/test partition of the course corpus "
      "(Chapter 2).\n# Regenerate: ch02-corpus-partitions --write-manifest PATH\n";
  for (Split split : kSplits) {
    std::size_t bytes = 0;
    for (std::size_t d : indices(partitions, split)) {
      split_of[d] = split;
      bytes += document_bytes(corpus.documents[d]);
    }
    text += fmt::format("# {}: {} documents, {} bytes\n", describe(split),
                        indices(partitions, split).size(), bytes);
  }
  text += fmt::format("corpus_sha256\t{}\nrule\t{}\n", corpus_sha256(corpus),
                      kPartitionRule);
  for (std::size_t d = 0; d < corpus.documents.size(); ++d)
    text += fmt::format("{}\t{}\n", corpus.documents[d].title, describe(split_of[d]));
  return text;
}
// endregion: format-manifest

namespace {

// A failed read or write of the manifest as this module's error, the FileError's reason
// in the detail.
[[nodiscard]] auto manifest_file_failure(PartitionErrorCode code,
                                         std::string_view stage,
                                         const std::filesystem::path& path) {
  return [code, stage, &path](const FileError& error) {
    return PartitionError{
        code, std::string(stage),
        fmt::format("manifest {}: {}", path.string(), reason_of(error)), std::nullopt};
  };
}

}  // namespace

// region: write-manifest
// Chapter 2 writes the course's first file, so the atomic write is built here
// (core/atomic_file.cpp): temporary file, fsync, rename, fsync the folder.
std::expected<void, PartitionError> write_manifest(const std::filesystem::path& path,
                                                   const Corpus& corpus,
                                                   const Partitions& partitions) {
  return map_file_error(
      write_file_atomically(path, format_manifest(corpus, partitions)),
      manifest_file_failure(PartitionErrorCode::unwritable, kWriteStage, path));
}
// endregion: write-manifest

namespace {

// The two fields of a manifest line, split at its last tab (a title may hold tabs).
struct ManifestFields {
  std::string_view key;    ///< the title, or a header key
  std::string_view value;  ///< the split, or a header value
};

// Each manifest line is checked where it is read; `site` is `manifest M, line N`.
[[nodiscard]] std::expected<ManifestFields, PartitionError> split_manifest_fields(
    std::string_view line, const std::string& site) {
  const std::size_t tab = line.rfind('\t');
  if (tab == std::string_view::npos || tab == 0 || tab + 1 == line.size())
    return reject(PartitionErrorCode::malformed_line, kReadStage,
                  fmt::format("{}: expected two fields separated by a tab", site));
  return ManifestFields{line.substr(0, tab), line.substr(tab + 1)};
}

[[nodiscard]] std::expected<void, PartitionError> check_manifest_hash(
    const ManifestFields& fields, const std::string& expected,
    const std::string& site) {
  if (fields.key != "corpus_sha256")
    return reject(PartitionErrorCode::missing_hash, kReadStage,
                  fmt::format("{}: the first line must be corpus_sha256", site));
  if (fields.value != expected)
    return reject(PartitionErrorCode::corpus_mismatch, kReadStage,
                  fmt::format("{}: manifest has {}, corpus has {}", site, fields.value,
                              expected));
  return {};
}

[[nodiscard]] std::expected<Split, PartitionError> parse_split(
    std::string_view name, const std::string& site) {
  for (Split split : kSplits)
    if (name == describe(split)) return split;
  return reject(PartitionErrorCode::unknown_split, kReadStage,
                fmt::format("{}: \"{}\"", site, name));
}

// region: manifest-entry-checks
// The corpus index of a listed title; `listed_on[d]` is the line that listed d (0: not
// yet listed).
[[nodiscard]] std::expected<std::size_t, PartitionError> check_manifest_entry(
    std::string_view title,
    const std::unordered_map<std::string_view, std::size_t>& index_of,
    const std::vector<std::size_t>& listed_on, const std::string& site) {
  const auto found = index_of.find(title);
  if (found == index_of.end())
    return reject(PartitionErrorCode::unknown_document, kReadStage,
                  fmt::format("{}: \"{}\"", site, title));
  if (listed_on[found->second] != 0)
    return reject(PartitionErrorCode::duplicate_entry, kReadStage,
                  fmt::format("{}: \"{}\" first listed on line {}", site, title,
                              listed_on[found->second]));
  return found->second;
}

// After the last line: the hash was there, and every document was listed.
[[nodiscard]] std::expected<void, PartitionError> check_manifest_complete(
    bool hash_seen, const std::vector<std::size_t>& listed_on, const Corpus& corpus,
    std::string_view manifest, std::size_t lines) {
  if (!hash_seen)
    return reject(PartitionErrorCode::missing_hash, kReadStage,
                  fmt::format("manifest {}, line {}: end of file", manifest, lines));
  for (std::size_t d = 0; d < listed_on.size(); ++d)
    if (listed_on[d] == 0)
      return reject(PartitionErrorCode::missing_document, kReadStage,
                    fmt::format("manifest {}, after line {}: document {} \"{}\"",
                                manifest, lines, d, corpus.documents[d].title));
  return {};
}
// endregion: manifest-entry-checks

}  // namespace

// region: parse-partitions
// `#` comment lines come only before the corpus hash line; an optional `rule` line may
// follow it directly; every later non-blank line lists one document (so a title may
// begin with `#`, be `rule`, or hold a tab). The partitions are built only after every
// check has passed.
std::expected<Partitions, PartitionError> parse_partitions(std::string_view text,
                                                           std::string_view manifest,
                                                           const Corpus& corpus) {
  std::unordered_map<std::string_view, std::size_t> index_of;  // title -> index
  for (std::size_t d = 0; d < corpus.documents.size(); ++d)
    index_of.emplace(corpus.documents[d].title, d);
  std::vector<std::size_t> listed_on(corpus.documents.size(), 0);
  std::vector<Split> split_of(corpus.documents.size(), Split::train);
  const std::string expected_hash = corpus_sha256(corpus);
  bool hash_seen = false;
  bool rule_allowed = false;  // only on the line after the hash
  std::size_t number = 0;     // the line being read, from 1
  for (std::size_t at = 0; at < text.size(); ++number) {
    const std::size_t end = std::min(text.find('\n', at), text.size());
    const std::string_view line = text.substr(at, end - at);
    at = end + 1;
    const std::string site = fmt::format("manifest {}, line {}", manifest, number + 1);
    if (line.empty() || (!hash_seen && line.starts_with('#'))) continue;
    const ManifestFields fields = LLMFS_TRY(split_manifest_fields(line, site));
    if (!hash_seen) {
      LLMFS_TRY(check_manifest_hash(fields, expected_hash, site));
      hash_seen = rule_allowed = true;
    } else if (!std::exchange(rule_allowed, false) || fields.key != "rule") {
      const Split split = LLMFS_TRY(parse_split(fields.value, site));
      const std::size_t d =
          LLMFS_TRY(check_manifest_entry(fields.key, index_of, listed_on, site));
      listed_on[d] = number + 1;
      split_of[d] = split;
    }
  }
  LLMFS_TRY(check_manifest_complete(hash_seen, listed_on, corpus, manifest, number));
  return collect_partitions(split_of);
}
// endregion: parse-partitions

std::expected<Partitions, PartitionError> read_partitions(
    const std::filesystem::path& manifest, const Corpus& corpus) {
  const std::string text = LLMFS_TRY(map_file_error(
      read_file(manifest),
      manifest_file_failure(PartitionErrorCode::unreadable, kReadStage, manifest)));
  return parse_partitions(text, manifest.string(), corpus);
}

std::expected<PartitionedCorpus, PartitionError> read_partitioned_corpus(
    const std::filesystem::path& corpus_path,
    const std::filesystem::path& manifest_path) {
  Corpus corpus = LLMFS_TRY_AT(kReadStage, read_corpus(corpus_path));
  Partitions partitions = LLMFS_TRY(read_partitions(manifest_path, corpus));
  return PartitionedCorpus{std::move(corpus), std::move(partitions)};
}

}  // namespace llmfs::text
