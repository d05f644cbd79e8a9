// Chapter 35
#include <algorithm>
#include <bit>
#include <cstring>
#include <optional>
#include <set>
#include <tuple>
#include <utility>

#include <fmt/format.h>
#include <fmt/ranges.h>

#include <llmfs/core/atomic_file.hpp>
#include <llmfs/core/read_file.hpp>
#include <llmfs/training/safetensors.hpp>

#include <nlohmann/json.hpp>
#include <openssl/evp.h>

namespace llmfs::training {

std::string_view describe(CheckpointErrorCode code) noexcept {
  switch (code) {
    case CheckpointErrorCode::cannot_read: return "cannot read the file";
    case CheckpointErrorCode::cannot_write: return "cannot write the file";
    case CheckpointErrorCode::truncated: return "file is truncated";
    case CheckpointErrorCode::header_too_large: return "header is too large";
    case CheckpointErrorCode::bad_json: return "header is not a JSON object";
    case CheckpointErrorCode::bad_entry: return "malformed tensor entry";
    case CheckpointErrorCode::bad_name: return "bad name";
    case CheckpointErrorCode::unsupported_dtype: return "unsupported dtype";
    case CheckpointErrorCode::bad_offsets: return "bad data offsets";
    case CheckpointErrorCode::not_a_checkpoint: return "not an llmfs checkpoint";
    case CheckpointErrorCode::wrong_version: return "unsupported format version";
    case CheckpointErrorCode::checksum_mismatch: return "checksum mismatch";
    case CheckpointErrorCode::missing_entry: return "missing entry";
    case CheckpointErrorCode::shape_mismatch: return "shape mismatch";
    case CheckpointErrorCode::bad_value: return "bad metadata value";
    case CheckpointErrorCode::unexpected_entry: return "unexpected entry";
  }
  return "unknown checkpoint error";
}

bool operator==(const NamedTensor& a, const NamedTensor& b) noexcept {
  if (a.name != b.name || a.shape != b.shape || a.values.size() != b.values.size())
    return false;
  for (std::size_t i = 0; i < a.values.size(); ++i)
    if (std::bit_cast<std::uint64_t>(a.values[i]) !=
        std::bit_cast<std::uint64_t>(b.values[i]))
      return false;
  return true;
}

std::string sha256_hex_of(std::string_view bytes) {
  unsigned char digest[EVP_MAX_MD_SIZE];
  unsigned int length = 0;
  if (EVP_Digest(bytes.data(), bytes.size(), digest, &length, EVP_sha256(), nullptr) !=
      1)
    return {};
  std::string hex;
  for (unsigned int i = 0; i < length; ++i)
    hex += fmt::format("{:02x}", digest[i]);
  return hex;
}

namespace {

using Json = nlohmann::json;
using Unexpected = std::unexpected<CheckpointError>;

constexpr std::string_view kFormatKey = "llmfs.format";
constexpr std::string_view kVersionKey = "llmfs.format_version";
constexpr std::string_view kChecksumKey = "llmfs.sha256";
constexpr std::string_view kFormatName = "llmfs-checkpoint";
constexpr std::size_t kDigestChars = 64;

// The error, for a `return` from a function returning std::expected<T,
// CheckpointError>.
[[nodiscard]] Unexpected fail(CheckpointErrorCode code, std::string_view file,
                              std::uint64_t offset, std::string_view stage,
                              std::string detail = {}) {
  return Unexpected(CheckpointError{code, std::string(file), offset, std::string(stage),
                                    std::move(detail)});
}

// region: name-rule
// Names and metadata keys: 1 to 256 characters of [A-Za-z0-9._/-], and never the
// reserved key `__metadata__`. The rule keeps every name printable in an error message
// and makes the checksum field's bytes impossible to imitate inside another key.
[[nodiscard]] bool valid_name(std::string_view name) noexcept {
  if (name.empty() || name.size() > 256 || name == "__metadata__") return false;
  return std::ranges::all_of(name, [](char c) {
    return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') ||
           c == '.' || c == '_' || c == '/' || c == '-';
  });
}
// endregion: name-rule

// The number of elements of `shape`, or nothing when it (or its byte count) overflows.
[[nodiscard]] std::optional<std::uint64_t> element_count(
    const std::vector<std::uint64_t>& shape) noexcept {
  std::uint64_t count = 1;
  for (std::uint64_t dim : shape) {
    if (dim != 0 && count > UINT64_MAX / 8 / dim) return std::nullopt;
    count *= dim;
  }
  return count;
}

// region: little-endian
// A 64-bit word as 8 bytes, least significant first, whatever the machine's order; a
// double travels as the word of its bits (std::bit_cast), so every bit survives,
// NaN payloads and the sign of zero included.
void put_u64(std::string& out, std::uint64_t word) {
  for (int byte = 0; byte < 8; ++byte)
    out.push_back(static_cast<char>((word >> (8 * byte)) & 0xFF));
}

[[nodiscard]] std::uint64_t get_u64(const char* in) noexcept {
  std::uint64_t word = 0;
  for (int byte = 0; byte < 8; ++byte)
    word |= std::uint64_t{static_cast<unsigned char>(in[byte])} << (8 * byte);
  return word;
}
// endregion: little-endian

// The exact bytes `"llmfs.sha256":"` that precede the digest in a compact header.
[[nodiscard]] std::string checksum_prefix() {
  return fmt::format("\"{}\":\"", kChecksumKey);
}

[[nodiscard]] std::string to_string(const std::vector<std::uint64_t>& shape) {
  return fmt::format("[{}]", fmt::join(shape, ","));
}

// Everything encode_tensor_file() refuses, found before a byte is written.
[[nodiscard]] std::expected<void, CheckpointError> check_encodable(
    const TensorFile& file, std::string_view label) {
  std::set<std::string_view> seen;
  for (const NamedTensor& tensor : file.tensors) {
    if (!valid_name(tensor.name))
      return fail(CheckpointErrorCode::bad_name, label, 0, "encode",
                  fmt::format("tensor name '{}'", tensor.name));
    if (!seen.insert(tensor.name).second)
      return fail(CheckpointErrorCode::bad_name, label, 0, "encode",
                  fmt::format("tensor name '{}' appears twice", tensor.name));
    const auto count = element_count(tensor.shape);
    if (!count || *count != tensor.values.size())
      return fail(CheckpointErrorCode::bad_entry, label, 0, "encode",
                  fmt::format("{} has shape {} but {} values", tensor.name,
                              to_string(tensor.shape), tensor.values.size()));
  }
  for (const auto& [key, value] : file.metadata)
    if (!valid_name(key) || key.starts_with("llmfs."))
      return fail(CheckpointErrorCode::bad_name, label, 0, "encode",
                  fmt::format("metadata key '{}'", key));
  return {};
}

}  // namespace

// region: seal-checksum
bool seal_checksum(std::string& bytes) {
  if (bytes.size() < 8) return false;
  const std::uint64_t header_length = get_u64(bytes.data());
  if (header_length > bytes.size() - 8) return false;
  const std::string_view header(bytes.data() + 8, header_length);
  const std::string prefix = checksum_prefix();
  const std::size_t at = header.find(prefix);
  if (at == std::string_view::npos || header.find(prefix, at + 1) != header.npos ||
      at + prefix.size() + kDigestChars > header.size())
    return false;
  const std::size_t digest_at = 8 + at + prefix.size();
  bytes.replace(digest_at, kDigestChars, kDigestChars, '0');
  const std::string digest = sha256_hex_of(bytes);
  bytes.replace(digest_at, kDigestChars, digest);
  return true;
}
// endregion: seal-checksum

// region: encode
std::expected<std::string, CheckpointError> encode_tensor_file(const TensorFile& file,
                                                               std::string_view label) {
  if (auto checked = check_encodable(file, label); !checked)
    return std::unexpected(checked.error());
  // The header: metadata first (with format, version and a zero digest), then one
  // entry per tensor whose offsets follow the previous tensor's end.
  nlohmann::ordered_json header;
  auto& metadata = header["__metadata__"] = nlohmann::ordered_json::object();
  for (const auto& [key, value] : file.metadata)
    metadata[key] = value;
  metadata[std::string(kFormatKey)] = kFormatName;
  metadata[std::string(kVersionKey)] = kFormatVersion;
  metadata[std::string(kChecksumKey)] = std::string(kDigestChars, '0');
  std::uint64_t offset = 0;
  for (const NamedTensor& tensor : file.tensors) {
    const std::uint64_t bytes = tensor.values.size() * 8;
    header[tensor.name] = {{"dtype", "F64"},
                           {"shape", tensor.shape},
                           {"data_offsets", {offset, offset + bytes}}};
    offset += bytes;
  }
  std::string text;
  try {
    text = header.dump(-1, ' ', true, nlohmann::json::error_handler_t::strict);
  } catch (const nlohmann::json::exception& error) {
    return fail(CheckpointErrorCode::bad_value, label, 0, "encode",
                fmt::format("metadata is not valid UTF-8: {}", error.what()));
  }
  text.append((8 - text.size() % 8) % 8, ' ');  // the data starts 8-byte aligned
  // Length, header, then every value's 8 bytes in file order; then the digest.
  std::string out;
  out.reserve(8 + text.size() + offset);
  put_u64(out, text.size());
  out += text;
  for (const NamedTensor& tensor : file.tensors)
    for (double value : tensor.values)
      put_u64(out, std::bit_cast<std::uint64_t>(value));
  (void)seal_checksum(out);  // the header holds the digest field exactly once
  return out;
}
// endregion: encode

namespace {

// One tensor entry of a header, checked; `begin` and `end` are relative to the data.
struct Entry {
  std::string name;
  std::vector<std::uint64_t> shape;
  std::uint64_t begin = 0, end = 0;
};

// The parsed header: tensor entries and the metadata object, with its duplicates found.
struct Header {
  std::vector<Entry> entries;
  std::map<std::string, std::string> metadata;
};

// Parses the header's JSON; a duplicate key at any level is an error (nlohmann::json
// keeps the last silently, another reader might keep the first).
[[nodiscard]] std::expected<Json, CheckpointError> parse_json(std::string_view text,
                                                              std::string_view label) {
  // The format's rule: the header is an object from its first byte (no leading space)
  constexpr std::string_view object_brackets = "{}";
  if (text.empty() || text.front() != object_brackets.front())
    return fail(CheckpointErrorCode::bad_json, label, 8, "header json",
                "the header does not begin with an opening brace");
  std::vector<std::set<std::string>> open;
  std::string duplicate;
  const Json::parser_callback_t watch = [&](int, Json::parse_event_t event,
                                            Json& value) {
    if (event == Json::parse_event_t::object_start) open.emplace_back();
    if (event == Json::parse_event_t::object_end && !open.empty()) open.pop_back();
    if (event == Json::parse_event_t::key && !open.empty() && duplicate.empty() &&
        !open.back().insert(value.get<std::string>()).second)
      duplicate = value.get<std::string>();
    return true;
  };
  try {
    Json parsed = Json::parse(text.begin(), text.end(), watch);
    if (!duplicate.empty())
      return fail(CheckpointErrorCode::bad_json, label, 8, "header json",
                  fmt::format("key '{}' appears twice", duplicate));
    if (!parsed.is_object())
      return fail(CheckpointErrorCode::bad_json, label, 8, "header json",
                  "the header is not an object");
    return parsed;
  } catch (const Json::parse_error& error) {
    const std::uint64_t at = error.byte == 0 ? 0 : error.byte - 1;
    return fail(CheckpointErrorCode::bad_json, label, 8 + at, "header json",
                fmt::format("parse error at header byte {}", at));
  } catch (const Json::exception& error) {  // e.g. a number beyond the double range
    return fail(CheckpointErrorCode::bad_json, label, 8, "header json", error.what());
  }
}

// A JSON array of unsigned integers, or nothing.
[[nodiscard]] std::optional<std::vector<std::uint64_t>> unsigned_list(
    const Json& value) {
  if (!value.is_array()) return std::nullopt;
  std::vector<std::uint64_t> list;
  for (const Json& item : value) {
    if (!item.is_number_unsigned()) return std::nullopt;
    list.push_back(item.get<std::uint64_t>());
  }
  return list;
}

// region: check-entry
// One tensor entry: exactly dtype `F64`, a shape, and two data offsets whose distance
// is 8 bytes per element.
[[nodiscard]] std::expected<Entry, CheckpointError> check_entry(
    const std::string& name, const Json& value, std::string_view label) {
  const auto bad = [&](CheckpointErrorCode code, std::string detail) {
    return fail(code, label, 8, "tensor entry", fmt::format("{}: {}", name, detail));
  };
  if (!valid_name(name)) return bad(CheckpointErrorCode::bad_name, "not a valid name");
  if (!value.is_object() || value.size() != 3 || !value.contains("dtype") ||
      !value.contains("shape") || !value.contains("data_offsets"))
    return bad(CheckpointErrorCode::bad_entry,
               "needs exactly dtype, shape, data_offsets");
  if (!value["dtype"].is_string()) return bad(CheckpointErrorCode::bad_entry, "dtype");
  if (value["dtype"] != "F64")
    return bad(CheckpointErrorCode::unsupported_dtype,
               fmt::format("dtype {}, this reader reads F64", value["dtype"].dump()));
  const auto shape = unsigned_list(value["shape"]);
  const auto offsets = unsigned_list(value["data_offsets"]);
  if (!shape || !offsets || offsets->size() != 2)
    return bad(CheckpointErrorCode::bad_entry, "shape or data_offsets");
  const auto count = element_count(*shape);
  const std::uint64_t begin = (*offsets)[0], end = (*offsets)[1];
  if (!count || begin > end || end - begin != *count * 8)
    return bad(
        CheckpointErrorCode::bad_offsets,
        fmt::format("shape {} needs {} bytes, offsets [{},{}]", to_string(*shape),
                    count ? fmt::format("{}", *count * 8) : "too many", begin, end));
  return Entry{name, *shape, begin, end};
}
// endregion: check-entry

// The header's metadata and entries, each checked on its own.
[[nodiscard]] std::expected<Header, CheckpointError> check_header(
    const Json& json, std::string_view label) {
  Header header;
  for (const auto& [key, value] : json.items()) {
    if (key != "__metadata__") {
      auto entry = check_entry(key, value, label);
      if (!entry) return std::unexpected(entry.error());
      header.entries.push_back(std::move(*entry));
      continue;
    }
    if (!value.is_object())
      return fail(CheckpointErrorCode::bad_json, label, 8, "metadata",
                  "__metadata__ is not an object");
    for (const auto& [meta_key, meta_value] : value.items()) {
      if (!meta_key.starts_with("llmfs.") && !valid_name(meta_key))
        return fail(CheckpointErrorCode::bad_name, label, 8, "metadata",
                    fmt::format("key {}", Json(meta_key).dump()));
      if (!meta_value.is_string())
        return fail(CheckpointErrorCode::bad_json, label, 8, "metadata",
                    fmt::format("value of '{}' is not a string", meta_key));
      header.metadata[meta_key] = meta_value.get<std::string>();
    }
  }
  return header;
}

// region: check-version
// The format and its version, read before anything else the version could change.
[[nodiscard]] std::expected<void, CheckpointError> check_version(
    const std::map<std::string, std::string>& metadata, std::string_view label) {
  const auto format = metadata.find(std::string(kFormatKey));
  if (format == metadata.end() || format->second != kFormatName)
    return fail(CheckpointErrorCode::not_a_checkpoint, label, 8, "version",
                fmt::format("{} is not {}", kFormatKey, kFormatName));
  const auto version = metadata.find(std::string(kVersionKey));
  if (version == metadata.end() || version->second != kFormatVersion)
    return fail(
        CheckpointErrorCode::wrong_version, label, 8, "version",
        fmt::format("version '{}', this reader reads {}",
                    version == metadata.end() ? "" : version->second, kFormatVersion));
  return {};
}
// endregion: check-version

// region: check-offsets
// In order of their bytes, the tensors tile the data exactly: the first starts at 0,
// each starts where the previous ended, the last ends at the file's end.
[[nodiscard]] std::expected<void, CheckpointError> check_offsets(
    std::vector<Entry>& entries, std::uint64_t data_start, std::uint64_t file_size,
    std::string_view label) {
  std::ranges::sort(entries, [](const Entry& a, const Entry& b) {
    return std::tie(a.begin, a.end, a.name) < std::tie(b.begin, b.end, b.name);
  });
  std::uint64_t expected_begin = 0;
  for (const Entry& entry : entries) {
    if (entry.begin != expected_begin)
      return fail(CheckpointErrorCode::bad_offsets, label, data_start + expected_begin,
                  "data offsets",
                  fmt::format("{} starts at {}, the previous tensor ends at {}",
                              entry.name, entry.begin, expected_begin));
    expected_begin = entry.end;
  }
  const std::uint64_t data_size = file_size - data_start;
  if (expected_begin > data_size)
    return fail(CheckpointErrorCode::truncated, label, file_size, "data offsets",
                fmt::format("the tensors need {} data bytes, the file has {}",
                            expected_begin, data_size));
  if (expected_begin < data_size)
    return fail(
        CheckpointErrorCode::bad_offsets, label, data_start + expected_begin,
        "data offsets",
        fmt::format("{} bytes after the last tensor", data_size - expected_begin));
  return {};
}
// endregion: check-offsets

// region: check-checksum
// The stored digest equals the SHA-256 of the file with the digest's 64 characters
// replaced by '0'. The digest's bytes must appear exactly once, in compact form.
[[nodiscard]] std::expected<void, CheckpointError> check_checksum(
    std::string_view bytes, const std::map<std::string, std::string>& metadata,
    std::string_view label) {
  const auto stored = metadata.find(std::string(kChecksumKey));
  if (stored == metadata.end())
    return fail(CheckpointErrorCode::missing_entry, label, 8, "checksum",
                fmt::format("no {}", kChecksumKey));
  std::string copy(bytes);
  if (!seal_checksum(copy))
    return fail(
        CheckpointErrorCode::checksum_mismatch, label, 8, "checksum",
        fmt::format("{} is not found exactly once in compact form", kChecksumKey));
  const std::string_view header(bytes.data() + 8, get_u64(bytes.data()));
  const std::uint64_t at =
      8 + header.find(checksum_prefix()) + checksum_prefix().size();
  const std::string_view computed(copy.data() + at, kDigestChars);
  if (stored->second != computed)
    return fail(CheckpointErrorCode::checksum_mismatch, label, at, "checksum",
                fmt::format("stored {}, computed {}", stored->second, computed));
  return {};
}
// endregion: check-checksum

}  // namespace

// region: decode
std::expected<TensorFile, CheckpointError> decode_tensor_file(std::string_view bytes,
                                                              std::string_view label) {
  // The length, the JSON, the version, every entry, the offsets, the checksum
  if (bytes.size() < 8)
    return fail(CheckpointErrorCode::truncated, label, bytes.size(), "header length",
                fmt::format("{} bytes, the length alone takes 8", bytes.size()));
  const std::uint64_t header_length = get_u64(bytes.data());
  if (header_length > kMaxHeaderBytes)
    return fail(CheckpointErrorCode::header_too_large, label, 0, "header length",
                fmt::format("{} bytes, at most {}", header_length, kMaxHeaderBytes));
  if (header_length > bytes.size() - 8)
    return fail(CheckpointErrorCode::truncated, label, bytes.size(), "header length",
                fmt::format("header of {} bytes, {} follow the length", header_length,
                            bytes.size() - 8));
  const auto json = parse_json(bytes.substr(8, header_length), label);
  if (!json) return std::unexpected(json.error());
  auto header = check_header(*json, label);
  if (!header) return std::unexpected(header.error());
  if (auto ok = check_version(header->metadata, label); !ok)
    return std::unexpected(ok.error());
  const std::uint64_t data_start = 8 + header_length;
  if (auto ok = check_offsets(header->entries, data_start, bytes.size(), label); !ok)
    return std::unexpected(ok.error());
  if (auto ok = check_checksum(bytes, header->metadata, label); !ok)
    return std::unexpected(ok.error());
  // Only now is anything decoded: every value's 8 bytes to a double
  TensorFile file;
  for (Entry& entry : header->entries) {
    NamedTensor tensor{std::move(entry.name), std::move(entry.shape), {}};
    tensor.values.resize((entry.end - entry.begin) / 8);
    for (std::size_t i = 0; i < tensor.values.size(); ++i)
      tensor.values[i] = std::bit_cast<double>(
          get_u64(bytes.data() + data_start + entry.begin + 8 * i));
    file.tensors.push_back(std::move(tensor));
  }
  for (auto& [key, value] : header->metadata)
    if (!key.starts_with("llmfs.")) file.metadata.emplace(key, std::move(value));
  return file;
}
// endregion: decode

std::expected<void, CheckpointError> save_tensor_file(const std::filesystem::path& path,
                                                      const TensorFile& file) {
  const auto bytes = encode_tensor_file(file, path.string());
  if (!bytes) return std::unexpected(bytes.error());
  if (auto written = write_file_atomically(path, *bytes); !written)
    return fail(CheckpointErrorCode::cannot_write, path.string(), 0, "write",
                reason_of(written.error()));
  return {};
}

std::expected<TensorFile, CheckpointError> load_tensor_file(
    const std::filesystem::path& path) {
  const auto bytes = read_file(path);
  if (!bytes)
    return fail(CheckpointErrorCode::cannot_read, path.string(), 0, "read",
                reason_of(bytes.error()));
  return decode_tensor_file(*bytes, path.string());
}

}  // namespace llmfs::training
