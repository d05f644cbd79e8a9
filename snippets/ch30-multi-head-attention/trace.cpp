// Chapter 30
// The trace: the 34 records docs/_ext/diagrams/ch30.py draws, one fact per
// record.

#include <llmfs/report/format.hpp>
#include <llmfs/report/record.hpp>

#include "evidence.hpp"

namespace ch30 {

using llmfs::report::format_values;
using llmfs::report::Record;
using llmfs::tensor::Tensor;

namespace {

// `count` consecutive values starting at `start`.
std::span<const double> slice(const Tensor& t, std::size_t start, std::size_t count) {
  return t.values().subspan(start, count);
}

// The T rows of one head of a [1,h,T,d_h] tensor, as `[[a,b],[c,d],...]`.
std::string head_rows(const Tensor& heads, std::size_t head) {
  std::vector<std::string> rows;
  for (std::size_t t = 0; t < kTokens; ++t)
    rows.push_back(
        format_values(slice(heads, (head * kTokens + t) * kHeadWidth, kHeadWidth)));
  return fmt::format("[{}]", fmt::join(rows, ","));
}

std::string words(const std::vector<std::string>& items) {
  return fmt::format("[{}]", fmt::join(items, ","));
}

Record partition_record(const PrimaryEvidence& p, std::size_t head) {
  std::vector<std::size_t> features;
  for (std::size_t f = 0; f < kHeadWidth; ++f)
    features.push_back(head * kHeadWidth + f);
  Record record("PARTITION");
  record.field("head", head)
      .field("features", fmt::format("[{}]", fmt::join(features, ",")))
      .field("projected_query", head_rows(p.projected_query_heads, head))
      .field("projected_key", head_rows(p.projected_key_heads, head))
      .field("projected_value", head_rows(p.projected_value_heads, head))
      .field("rotated_query", head_rows(p.rotated_query_heads, head))
      .field("rotated_key", head_rows(p.rotated_key_heads, head));
  return record;
}

Record weight_record(const PrimaryEvidence& p, std::size_t head, std::size_t query) {
  const std::size_t start = (head * kTokens + query) * kTokens;
  auto probabilities = slice(p.attention_weights, start, kTokens);
  std::vector<std::string> visibility;
  double row_sum = 0.0;
  for (std::size_t key = 0; key < kTokens; ++key) {
    visibility.push_back(key <= query ? "allowed" : "blocked");
    row_sum += probabilities[key];
  }
  Record record("WEIGHT");
  record.field("head", head)
      .field("query", query)
      .field("scores", slice(p.masked_scores, start, kTokens))
      .field("probabilities", probabilities)
      .field("visibility", words(visibility))
      .field("diagonal", query)
      .field("row_sum", row_sum);
  return record;
}

// A parameter's name without the layer's prefix: `attention.query.weight` →
// `query.weight`.
std::string_view role(std::string_view name) {
  const std::string_view prefix = kParameterPrefix;
  if (name.starts_with(prefix) && name.size() > prefix.size() &&
      name[prefix.size()] == '.')
    name.remove_prefix(prefix.size() + 1);
  return name;
}

Record config_record(const Evidence& evidence) {
  std::vector<std::string> order;
  for (const std::string& name : evidence.parameters.names)
    order.emplace_back(role(name));
  Record record("CONFIG");
  record.field("batch", kBatch)
      .field("tokens", kTokens)
      .field("model_width", kModelWidth)
      .field("heads", kHeads)
      .field("head_width", kHeadWidth)
      .field("offset", kOffset)
      .field("max_positions", kMaxPositions)
      .field("rope_base", kRopeBase)
      .field("bias", !evidence.parameters.bias_free)
      .field("parameter_order", words(order))
      .field("layout", evidence.primary.split_is_reshape_transpose ? "reshape-transpose"
                                                                   : "unverified");
  return record;
}

std::vector<Record> shape_records(const ShapeEvidence& s) {
  const std::pair<const char*, const llmfs::tensor::Shape*> stages[] = {
      {"input", &s.input},
      {"split", &s.split},
      {"rotated", &s.rotated},
      {"weights", &s.weights},
      {"head-output", &s.head_output},
      {"merged", &s.merged},
      {"output-weight", &s.output_weight},
      {"output", &s.output}};
  std::vector<Record> records;
  for (auto [stage, shape] : stages) {
    Record record("SHAPE");
    record.field("stage", stage).field("value", *shape);
    records.push_back(std::move(record));
  }
  return records;
}

Record head_output_record(const PrimaryEvidence& p, std::size_t head,
                          std::size_t token) {
  Record record("HEAD_OUTPUT");
  record.field("head", head)
      .field("token", token)
      .field("mixture",
             slice(p.head_outputs, (head * kTokens + token) * kHeadWidth, kHeadWidth));
  return record;
}

Record merged_record(const PrimaryEvidence& p, std::size_t token) {
  Record record("MERGED");
  record.field("token", token)
      .field("head_0", slice(p.head_outputs, token * kHeadWidth, kHeadWidth))
      .field("head_1",
             slice(p.head_outputs, (kTokens + token) * kHeadWidth, kHeadWidth))
      .field("row", slice(p.merged, token * kModelWidth, kModelWidth));
  return record;
}

Record output_map_record(const PrimaryEvidence& p, std::size_t row) {
  Record record("OUTPUT_MAP");
  record.field("row", row)
      .field("head", row / kHeadWidth)
      .field("head_feature", row % kHeadWidth)
      .field("values", slice(p.output_weight, row * kModelWidth, kModelWidth));
  return record;
}

Record output_record(const PrimaryEvidence& p, std::size_t token) {
  Record record("OUTPUT");
  record.field("token", token)
      .field("before", slice(p.merged, token * kModelWidth, kModelWidth))
      .field("after", slice(p.output, token * kModelWidth, kModelWidth));
  return record;
}

Record proof_record(const Evidence& evidence) {
  const PrimaryEvidence& p = evidence.primary;
  auto position = [](bool unchanged) {
    return unchanged ? "bitwise-unchanged" : "changed";
  };
  Record record("PREFIX_PROOF");
  record.field("position_0", position(p.prefix_zero_unchanged))
      .field("position_1", position(p.prefix_one_unchanged))
      .field("position_2", position(!p.suffix_changed))
      .field("split_merge", p.split_merge_bitwise ? "bitwise" : "mismatch")
      .field("head_isolation",
             p.head_isolation_before_output ? "before-output" : "failed")
      .field("future_probabilities",
             p.future_probabilities_zero ? "exact-zero" : "nonzero")
      .field("common_offset",
             p.common_offset_weights_preserved ? "preserved" : "changed")
      .field("tolerance", fmt::format("{:.12f}", kInvariantTolerance))
      .field("parameters", evidence.parameters.count)
      .field("gradchecks", evidence.gradients.total());
  return record;
}

}  // namespace

// region: trace-records
std::string render_trace(const Evidence& evidence) {
  const PrimaryEvidence& p = evidence.primary;
  std::vector<Record> records = {config_record(evidence)};
  for (Record& shape : shape_records(evidence.shapes))
    records.push_back(std::move(shape));
  for (std::size_t head = 0; head < kHeads; ++head)
    records.push_back(partition_record(p, head));
  for (std::size_t head = 0; head < kHeads; ++head)
    for (std::size_t query = 0; query < kTokens; ++query)
      records.push_back(weight_record(p, head, query));
  for (std::size_t head = 0; head < kHeads; ++head)
    for (std::size_t token = 0; token < kTokens; ++token)
      records.push_back(head_output_record(p, head, token));
  for (std::size_t token = 0; token < kTokens; ++token)
    records.push_back(merged_record(p, token));
  for (std::size_t row = 0; row < kModelWidth; ++row)
    records.push_back(output_map_record(p, row));
  for (std::size_t token = 0; token < kTokens; ++token)
    records.push_back(output_record(p, token));
  records.push_back(proof_record(evidence));

  std::string text;
  for (const Record& record : records)
    text += record.str() + "\n";
  return text;
}
// endregion: trace-records

}  // namespace ch30
