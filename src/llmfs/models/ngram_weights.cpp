// Chapter 23
#include <bit>
#include <cstdint>
#include <cstring>
#include <string>
#include <vector>

#include <fmt/format.h>

#include <llmfs/core/atomic_file.hpp>
#include <llmfs/core/read_file.hpp>
#include <llmfs/models/ngram_weights.hpp>

namespace llmfs::models {

using tensor::Tensor;

static_assert(std::endian::native == std::endian::little,
              "the weights file stores little-endian doubles as they are in memory");

std::string_view describe(NgramWeightsErrorCode code) noexcept {
  switch (code) {
    case NgramWeightsErrorCode::bad_header: return "not an n-gram weights file header";
    case NgramWeightsErrorCode::wrong_size:
      return "file length does not match its header";
    case NgramWeightsErrorCode::stage_failed: return "a lower stage failed";
  }
  return "unknown weights error";
}

namespace {

std::string header_of(const NgramConfig& c) {
  return fmt::format("llmfs-ngram-weights version=1 V={} n={} d={} h={}\n",
                     c.vocab_size, c.context, c.embedding_width, c.hidden_width);
}

// One `key=N` field of the header: a decimal number without a leading zero, of at
// most six digits (so that the products of the sizes cannot overflow).
bool field(std::string_view& rest, std::string_view key, std::size_t& value) {
  if (!rest.starts_with(key)) return false;
  rest.remove_prefix(key.size());
  const std::size_t end = rest.find_first_not_of("0123456789");
  const std::string_view digits = rest.substr(0, end);
  if (digits.empty() || digits.size() > 6 || (digits.size() > 1 && digits[0] == '0'))
    return false;
  value = 0;
  for (char ch : digits)
    value = value * 10 + static_cast<std::size_t>(ch - '0');
  rest.remove_prefix(digits.size());
  return true;
}

}  // namespace

std::expected<void, NgramWeightsError> save_ngram_weights(
    const std::filesystem::path& path, const NgramMlp& model) {
  std::string bytes = header_of(model.config());
  for (const Tensor& value : model.values())
    bytes.append(reinterpret_cast<const char*>(value.values().data()),
                 value.size() * sizeof(double));
  if (auto written = write_file_atomically(path, bytes); !written)
    return at_stage(std::string("save weights"), std::move(written.error()));
  return {};
}

std::expected<NgramMlp, NgramWeightsError> load_ngram_weights(
    const std::filesystem::path& path) {
  const std::string stage = "load weights";
  auto bytes = read_file(path);
  if (!bytes) return at_stage(stage, std::move(bytes.error()));
  const std::size_t newline = bytes->find('\n');
  std::string_view rest = std::string_view(*bytes).substr(0, newline);
  NgramConfig c;
  const bool ok = newline != std::string::npos &&
                  rest.starts_with("llmfs-ngram-weights version=1 ") &&
                  (rest.remove_prefix(30), field(rest, "V=", c.vocab_size)) &&
                  field(rest, " n=", c.context) &&
                  field(rest, " d=", c.embedding_width) &&
                  field(rest, " h=", c.hidden_width) && rest.empty();
  if (!ok)
    return reject(NgramWeightsErrorCode::bad_header, stage,
                  fmt::format("{}, line 1", path.string()));
  const std::size_t count = c.vocab_size * c.embedding_width +
                            c.context * c.embedding_width * c.hidden_width +
                            c.hidden_width + c.hidden_width * c.vocab_size +
                            c.vocab_size;
  const std::size_t have = bytes->size() - newline - 1;
  if (have != count * sizeof(double))
    return reject(
        NgramWeightsErrorCode::wrong_size, stage,
        fmt::format("{}: {} bytes after the header at offset {}, {} expected",
                    path.string(), have, newline + 1, count * sizeof(double)));
  const std::vector<std::vector<std::size_t>> shapes{
      {c.vocab_size, c.embedding_width},
      {c.context * c.embedding_width, c.hidden_width},
      {c.hidden_width},
      {c.hidden_width, c.vocab_size},
      {c.vocab_size}};
  std::vector<Tensor> values;
  const char* at = bytes->data() + newline + 1;
  for (const auto& dims : shapes) {
    std::size_t n = 1;
    for (std::size_t d : dims)
      n *= d;
    std::vector<double> data(n);
    if (n > 0)  // an empty vector's data() may be null, which memcpy must not get
      std::memcpy(data.data(), at, n * sizeof(double));
    at += n * sizeof(double);
    auto tensor = Tensor::from(tensor::Shape(dims), std::move(data));
    if (!tensor)  // the sizes were checked against the length above
      return reject(NgramWeightsErrorCode::wrong_size, stage, path.string());
    values.push_back(std::move(*tensor));
  }
  auto model = NgramMlp::from_values(c, std::move(values));
  if (!model) return at_stage(stage, std::move(model.error()));
  return std::move(*model);
}

}  // namespace llmfs::models
