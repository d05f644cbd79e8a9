// Chapter 30
// Chapter 30's trace: the 34 records docs/_ext/diagrams/ch30.py draws, one fact each.

#include <algorithm>
#include <numeric>
#include <ranges>

#include <llmfs/report/format.hpp>
#include <llmfs/report/record.hpp>

#include "evidence.hpp"

namespace ch30 {

using llmfs::report::format_values;
using llmfs::report::Record;

namespace {

// Row `index` of a row-major tensor read as rows of `width` values.
std::span<const double> row(const Tensor& t, std::size_t index, std::size_t width) {
  return t.values().subspan(index * width, width);
}

// The T rows of one head of a [1,h,T,d_h] tensor, as `[[a,b],[c,d],...]`.
std::string head_rows(const Tensor& heads, std::size_t head) {
  std::vector<std::string> rows;
  for (std::size_t t = 0; t < kTokens; ++t)
    rows.push_back(format_values(row(heads, head * kTokens + t, kHeadWidth)));
  return fmt::format("[{}]", fmt::join(rows, ","));
}

Record config_record(const Evidence& p) {
  std::vector<std::string_view> order;  // names without the `attention.` prefix
  for (std::string_view name : p.parameter_names)
    order.push_back(name.substr(std::string_view(kParameterPrefix).size() + 1));
  return Record("CONFIG")
      .field("batch", kBatch)
      .field("tokens", kTokens)
      .field("model_width", kModelWidth)
      .field("heads", kHeads)
      .field("head_width", kHeadWidth)
      .field("offset", kOffset)
      .field("max_positions", kMaxPositions)
      .field("rope_base", kRopeBase)
      .field("bias", p.output_bias)
      .field("parameter_order", fmt::format("[{}]", fmt::join(order, ",")));
}

Record partition_record(const Evidence& p, std::size_t head) {
  return Record("PARTITION")
      .field("head", head)
      .field("features",
             fmt::format("[{}]", fmt::join(std::views::iota(head * kHeadWidth,
                                                            (head + 1) * kHeadWidth),
                                           ",")))
      .field("projected_query", head_rows(p.projected_query_heads, head))
      .field("projected_key", head_rows(p.projected_key_heads, head))
      .field("projected_value", head_rows(p.projected_value_heads, head))
      .field("rotated_query", head_rows(p.rotated_query_heads, head))
      .field("rotated_key", head_rows(p.rotated_key_heads, head));
}

Record weight_record(const Evidence& p, std::size_t head, std::size_t query) {
  const std::size_t at = head * kTokens + query;
  auto probabilities = row(p.attention_weights, at, kTokens);
  std::vector<std::string_view> visibility;
  for (std::size_t key = 0; key < kTokens; ++key)
    visibility.push_back(key <= query ? "allowed" : "blocked");
  return Record("WEIGHT")
      .field("head", head)
      .field("query", query)
      .field("scores", row(p.masked_scores, at, kTokens))
      .field("probabilities", probabilities)
      .field("visibility", fmt::format("[{}]", fmt::join(visibility, ",")))
      .field("diagonal", query)
      .field("row_sum",
             std::accumulate(probabilities.begin(), probabilities.end(), 0.0));
}

Record head_output_record(const Evidence& p, std::size_t head, std::size_t token) {
  return Record("HEAD_OUTPUT")
      .field("head", head)
      .field("token", token)
      .field("mixture", row(p.head_outputs, head * kTokens + token, kHeadWidth));
}

Record merged_record(const Evidence& p, std::size_t token) {
  return Record("MERGED")
      .field("token", token)
      .field("head_0", row(p.head_outputs, token, kHeadWidth))
      .field("head_1", row(p.head_outputs, kTokens + token, kHeadWidth))
      .field("row", row(p.merged, token, kModelWidth));
}

Record output_map_record(const Evidence& p, std::size_t index) {
  return Record("OUTPUT_MAP")
      .field("row", index)
      .field("head", index / kHeadWidth)
      .field("head_feature", index % kHeadWidth)
      .field("values", row(p.output_weight, index, kModelWidth));
}

Record output_record(const Evidence& p, std::size_t token) {
  return Record("OUTPUT")
      .field("token", token)
      .field("before", row(p.merged, token, kModelWidth))
      .field("after", row(p.output, token, kModelWidth));
}

// Measured values only: changed coordinates per output row after the prefix edit, exact
// zeros among the probabilities, learned scalars, coordinates checked by differences.
Record proof_record(const Evidence& p) {
  const auto changed = changed_per_row(p.prefix_perturbed_output, p.output);
  return Record("PREFIX_PROOF")
      .field("position_0", changed[0])
      .field("position_1", changed[1])
      .field("position_2", changed[2])
      .field("exact_zero_probabilities",
             std::ranges::count(p.attention_weights.values(), 0.0))
      .field("parameters", p.parameter_count)
      .field("gradchecks", p.gradcheck.coordinates());
}

}  // namespace

// region: trace-records
std::string render_trace(const Evidence& p) {
  std::vector<Record> records = {config_record(p)};
  const std::pair<const char*, Shape> shapes[] = {
      {"input", p.input.shape()},
      {"split", p.projected_query_heads.shape()},
      {"rotated", p.rotated_query_heads.shape()},
      {"weights", p.attention_weights.shape()},
      {"head-output", p.head_outputs.shape()},
      {"merged", p.merged.shape()},
      {"output-weight", p.output_weight.shape()},
      {"output", p.output.shape()}};
  for (const auto& [stage, shape] : shapes)
    records.push_back(Record("SHAPE").field("stage", stage).field("value", shape));
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
  records.push_back(proof_record(p));

  std::vector<std::string> lines;
  for (const Record& record : records)
    lines.push_back(record.str());
  return snippets::join_lines(lines);
}
// endregion: trace-records

}  // namespace ch30
