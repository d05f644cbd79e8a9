// Chapter 30's report and trace: the seed's report keys in the seed's order, the 34
// trace records with their kinds and keys, and trace values that agree with PyTorch.

#include <fstream>
#include <map>
#include <sstream>

#include "chapters/ch30_support.hpp"
#include "support/reference_data.hpp"

namespace {

using ch30_test::evidence;

std::vector<std::string> lines_of(const std::string& text) {
  std::vector<std::string> lines;
  std::istringstream stream(text);
  for (std::string line; std::getline(stream, line);)
    lines.push_back(line);
  return lines;
}

std::string golden(const char* file) {
  std::ifstream in(std::string(LLMFS_SOURCE_DIR) +
                   "/snippets/ch30-multi-head-attention/" + file);
  std::stringstream buffer;
  buffer << in.rdbuf();
  return buffer.str();
}

struct TraceRecord {
  std::string kind;
  std::vector<std::pair<std::string, std::string>> fields;
  std::string at(const std::string& key) const {
    for (const auto& [k, v] : fields)
      if (k == key) return v;
    ADD_FAILURE() << kind << " has no " << key;
    return {};
  }
  std::vector<std::string> keys() const {
    std::vector<std::string> out;
    for (const auto& field : fields)
      out.push_back(field.first);
    return out;
  }
};

std::vector<TraceRecord> parse_trace(const std::string& text) {
  std::vector<TraceRecord> records;
  for (const auto& line : lines_of(text)) {
    TraceRecord record;
    std::istringstream parts(line);
    std::getline(parts, record.kind, '|');
    for (std::string part; std::getline(parts, part, '|');) {
      const auto eq = part.find('=');
      record.fields.emplace_back(part.substr(0, eq), part.substr(eq + 1));
    }
    records.push_back(record);
  }
  return records;
}

// `[a,b,c]` of six-decimal numbers, from reference values.
std::string printed(std::span<const double> values) {
  return llmfs::report::format_values(values);
}

TEST(Ch30Report, GoldenIsWhatTheProgramPrints) {
  EXPECT_EQ(golden("expected.txt"), ch30::render_report(evidence()));
  EXPECT_EQ(golden("trace.txt"), ch30::render_trace(evidence()));
}

TEST(Ch30Report, KeysFollowTheSeedOrderThenTheExercises) {
  std::vector<std::string> keys;
  for (const auto& line : lines_of(golden("expected.txt")))
    keys.push_back(line.substr(0, line.find('=')));
  const std::vector<std::string> expected = {"chapter",
                                             "prediction",
                                             "config",
                                             "input",
                                             "projected_query_heads",
                                             "projected_key_heads",
                                             "projected_value_heads",
                                             "rotated_query_heads",
                                             "rotated_key_heads",
                                             "attention_weights",
                                             "head_outputs",
                                             "merged",
                                             "output_weight",
                                             "output",
                                             "heads",
                                             "prefix_perturbed_output",
                                             "parameters",
                                             "upstream",
                                             "input_gradient",
                                             "query_weight_gradient",
                                             "key_weight_gradient",
                                             "value_weight_gradient",
                                             "output_weight_gradient",
                                             "gradcheck",
                                             "shapes",
                                             "error_zero_model_width",
                                             "error_zero_heads",
                                             "error_nondivisible",
                                             "error_odd_head_width",
                                             "error_input_rank",
                                             "error_input_width",
                                             "error_empty_tokens",
                                             "error_offset_overflow",
                                             "error_position_range",
                                             "error_released_input",
                                             "history",
                                             "next",
                                             "exercise_1",
                                             "exercise_2",
                                             "exercise_3",
                                             "exercise_4",
                                             "exercise_5",
                                             "exercise_6",
                                             "exercise_7",
                                             "exercise_8"};
  EXPECT_EQ(keys, expected);
}

TEST(Ch30Report, SummaryLinesStateTheSeedsFacts) {
  std::map<std::string, std::string> line;
  for (const auto& text : lines_of(golden("expected.txt")))
    line[text.substr(0, text.find('='))] = text.substr(text.find('=') + 1);
  EXPECT_EQ(line["config"],
            "batch:1 tokens:3 d_model:4 heads:2 d_h:2 offset:0 capacity:6 "
            "rope_base:100.000000 bias:false");
  EXPECT_EQ(line["gradcheck"],
            "input:12 query:16 key:16 value:16 output:16 total:76 tolerance:0.000008 "
            "passed:true");
  EXPECT_EQ(line["heads"], "tables:2 exact_zero_probabilities:6");
  EXPECT_TRUE(line["prefix_perturbed_output"].ends_with(
      " changed_coordinates_per_row:[0,0,4]"));
  EXPECT_TRUE(line["parameters"].ends_with(" count:64"));
  EXPECT_EQ(
      line["shapes"],
      "input:[1,3,4] split:[1,2,3,2] rotated:[1,2,3,2] weights:[1,2,3,3] "
      "head_output:[1,2,3,2] "
      "merged:[1,3,4] output_weight:[4,4] output:[1,3,4] empty_batch_weights:[0,2,3,3] "
      "empty_batch_output:[0,3,4] single_token_weights:[1,2,1,1]");
  EXPECT_EQ(line["error_zero_model_width"],
            "multi-head attention, configuration: model width must be nonzero");
  EXPECT_EQ(line["error_position_range"],
            "multi-head attention, input: position interval exceeds capacity "
            "(positions [4, 7) but capacity 6)");
  EXPECT_NE(line["history"].find(
                "single_head_shape:[1,3,3] multi_head_shape:[1,2,3,3] "
                "single_head_tables:1 multi_head_tables:2 mixing:after-concatenation"),
            std::string::npos);
  EXPECT_NE(line["upstream"].find("loss:2.591709"), std::string::npos);
  EXPECT_EQ(line["exercise_8"], "d_model:128 heads:4 parameters:65536");
}

TEST(Ch30Report, GradientLinesPrintPyTorchsGradients) {
  const auto torch = llmfs::testing::load_reference_case("ch30_fixture");
  std::map<std::string, std::string> line;
  for (const auto& text : lines_of(golden("expected.txt")))
    line[text.substr(0, text.find('='))] = text.substr(text.find('=') + 1);
  EXPECT_EQ(line["input_gradient"], printed(torch.at("grad_X").values));
  EXPECT_EQ(line["query_weight_gradient"], printed(torch.at("grad_W_Q").values));
  EXPECT_EQ(line["key_weight_gradient"], printed(torch.at("grad_W_K").values));
  EXPECT_EQ(line["value_weight_gradient"], printed(torch.at("grad_W_V").values));
  EXPECT_EQ(line["output_weight_gradient"], printed(torch.at("grad_W_O").values));
  EXPECT_EQ(line["output"],
            "shape:[1,3,4] values:" + printed(torch.at("output").values));
}

TEST(Ch30Trace, ThirtyFourRecordsOfTheSeedsKinds) {
  const auto records = parse_trace(golden("trace.txt"));
  ASSERT_EQ(records.size(), 34u);
  std::vector<std::string> kinds;
  for (const auto& r : records)
    kinds.push_back(r.kind);
  std::vector<std::string> expected = {"CONFIG"};
  auto add = [&](const char* kind, int count) {
    expected.insert(expected.end(), count, kind);
  };
  add("SHAPE", 8);
  add("PARTITION", 2);
  add("WEIGHT", 6);
  add("HEAD_OUTPUT", 6);
  add("MERGED", 3);
  add("OUTPUT_MAP", 4);
  add("OUTPUT", 3);
  add("PREFIX_PROOF", 1);
  EXPECT_EQ(kinds, expected);

  using Keys = std::vector<std::string>;
  const std::map<std::string, Keys> keys = {
      {"CONFIG",
       {"batch", "tokens", "model_width", "heads", "head_width", "offset",
        "max_positions", "rope_base", "bias", "parameter_order"}},
      {"SHAPE", {"stage", "value"}},
      {"PARTITION",
       {"head", "features", "projected_query", "projected_key", "projected_value",
        "rotated_query", "rotated_key"}},
      {"WEIGHT",
       {"head", "query", "scores", "probabilities", "visibility", "diagonal",
        "row_sum"}},
      {"HEAD_OUTPUT", {"head", "token", "mixture"}},
      {"MERGED", {"token", "head_0", "head_1", "row"}},
      {"OUTPUT_MAP", {"row", "head", "head_feature", "values"}},
      {"OUTPUT", {"token", "before", "after"}},
      {"PREFIX_PROOF",
       {"position_0", "position_1", "position_2", "exact_zero_probabilities",
        "parameters", "gradchecks"}}};
  for (const auto& r : records)
    EXPECT_EQ(r.keys(), keys.at(r.kind)) << r.kind;

  EXPECT_EQ(records[0].at("rope_base"), "100.000000");
  EXPECT_EQ(records[0].at("parameter_order"),
            "[query.weight,key.weight,value.weight,output.weight]");
  const std::vector<std::pair<std::string, std::string>> shapes = {
      {"input", "[1,3,4]"},         {"split", "[1,2,3,2]"},
      {"rotated", "[1,2,3,2]"},     {"weights", "[1,2,3,3]"},
      {"head-output", "[1,2,3,2]"}, {"merged", "[1,3,4]"},
      {"output-weight", "[4,4]"},   {"output", "[1,3,4]"}};
  for (std::size_t i = 0; i < shapes.size(); ++i) {
    EXPECT_EQ(records[1 + i].at("stage"), shapes[i].first);
    EXPECT_EQ(records[1 + i].at("value"), shapes[i].second);
  }
  const auto& proof = records.back();
  // Changed coordinates per output row after the prefix edit, and the exact zeros.
  EXPECT_EQ(proof.at("position_0"), "0");
  EXPECT_EQ(proof.at("position_1"), "0");
  EXPECT_EQ(proof.at("position_2"), "4");
  EXPECT_EQ(proof.at("exact_zero_probabilities"), "6");
  EXPECT_EQ(proof.at("parameters"), "64");
  EXPECT_EQ(proof.at("gradchecks"), "76");
}

TEST(Ch30Trace, WeightRecordsMarkVisibilityAndAgreeWithPyTorch) {
  const auto torch = llmfs::testing::load_reference_case("ch30_fixture");
  const auto& weights = torch.at("weights").values;
  const auto& scores = torch.at("masked_scores").values;
  const auto records = parse_trace(golden("trace.txt"));
  for (std::size_t i = 0; i < 6; ++i) {
    const auto& r = records[11 + i];
    const std::size_t head = i / 3, query = i % 3, start = i * 3;
    EXPECT_EQ(r.at("head"), std::to_string(head));
    EXPECT_EQ(r.at("query"), std::to_string(query));
    EXPECT_EQ(r.at("diagonal"), std::to_string(query));
    std::vector<std::string> visibility;
    for (std::size_t key = 0; key < 3; ++key)
      visibility.push_back(key <= query ? "allowed" : "blocked");
    EXPECT_EQ(r.at("visibility"), fmt::format("[{}]", fmt::join(visibility, ",")));
    EXPECT_EQ(r.at("probabilities"), printed(std::span(weights).subspan(start, 3)));
    EXPECT_EQ(r.at("scores"), printed(std::span(scores).subspan(start, 3)));
    EXPECT_EQ(r.at("row_sum"), "1.000000");
  }
  // Head outputs, merged rows and outputs against PyTorch too.
  const auto& heads = torch.at("head_outputs").values;
  for (std::size_t i = 0; i < 6; ++i)
    EXPECT_EQ(records[17 + i].at("mixture"),
              printed(std::span(heads).subspan(i * 2, 2)));
  const auto& merged = torch.at("merged").values;
  const auto& output = torch.at("output").values;
  for (std::size_t t = 0; t < 3; ++t) {
    EXPECT_EQ(records[23 + t].at("row"), printed(std::span(merged).subspan(t * 4, 4)));
    EXPECT_EQ(records[30 + t].at("before"),
              printed(std::span(merged).subspan(t * 4, 4)));
    EXPECT_EQ(records[30 + t].at("after"),
              printed(std::span(output).subspan(t * 4, 4)));
  }
  const auto& wo = torch.at("W_O").values;
  for (std::size_t r = 0; r < 4; ++r)
    EXPECT_EQ(records[26 + r].at("values"), printed(std::span(wo).subspan(r * 4, 4)));
}

// A head's `features` are the columns of the full-width projection that make up its
// lane. Confirmed against PyTorch: the printed projected rows of the head are exactly
// those columns of torch's full-width Q, K and V ([1,3,4], before any split), and also
// torch's own split
// (`view(1,3,2,2).transpose(1,2)`) of that head; the rotated rows are torch's RoPE of
// the head. The fixture's four columns are pairwise different, so no other feature list
// would match.
TEST(Ch30Trace, PartitionRecordsAreTheFullWidthColumnsOfEachHeadAsInPyTorch) {
  const auto torch = llmfs::testing::load_reference_case("ch30_fixture");
  const auto records = parse_trace(golden("trace.txt"));
  constexpr std::size_t tokens = 3, width = 4, head_width = 2;
  const auto head_rows = [&](const char* name, std::size_t head) {
    const auto& values = torch.at(name).values;
    std::vector<std::string> rows;
    for (std::size_t t = 0; t < tokens; ++t)
      rows.push_back(printed(
          std::span(values).subspan((head * tokens + t) * head_width, head_width)));
    return fmt::format("[{}]", fmt::join(rows, ","));
  };
  const auto columns = [&](const char* name, const std::vector<std::size_t>& features) {
    const auto& values = torch.at(name).values;
    std::vector<std::string> rows;
    for (std::size_t t = 0; t < tokens; ++t) {
      std::vector<double> row;
      for (std::size_t f : features)
        row.push_back(values[t * width + f]);
      rows.push_back(printed(row));
    }
    return fmt::format("[{}]", fmt::join(rows, ","));
  };
  for (std::size_t head = 0; head < 2; ++head) {
    const auto& r = records[9 + head];
    ASSERT_EQ(r.kind, "PARTITION");
    EXPECT_EQ(r.at("head"), std::to_string(head));
    // "[a,b]" -> {a, b}
    std::vector<std::size_t> features;
    std::istringstream list(r.at("features").substr(1, r.at("features").size() - 2));
    for (std::string item; std::getline(list, item, ',');)
      features.push_back(std::stoul(item));
    ASSERT_EQ(features.size(), head_width) << r.at("features");
    EXPECT_EQ(r.at("projected_query"), columns("Q", features)) << "head " << head;
    EXPECT_EQ(r.at("projected_key"), columns("K", features)) << "head " << head;
    EXPECT_EQ(r.at("projected_value"), columns("V", features)) << "head " << head;
    EXPECT_EQ(r.at("projected_query"), head_rows("Q_heads", head));
    EXPECT_EQ(r.at("projected_key"), head_rows("K_heads", head));
    EXPECT_EQ(r.at("projected_value"), head_rows("V_heads", head));
    EXPECT_EQ(r.at("rotated_query"), head_rows("Q_rotated", head));
    EXPECT_EQ(r.at("rotated_key"), head_rows("K_rotated", head));
  }
  // And the seed's partition of d_model = 4 into two heads of width 2.
  EXPECT_EQ(records[9].at("features"), "[0,1]");
  EXPECT_EQ(records[10].at("features"), "[2,3]");
}

// OUTPUT_MAP row r of W_O reads merged coordinate r; `head` and `head_feature` name
// where that coordinate came from. Confirmed against PyTorch's merge: for every token,
// torch's merged[t][r] equals torch's head_outputs[head][t][head_feature] exactly. The
// four columns of head outputs are pairwise different, so the printed (head,
// head_feature) is the only match.
TEST(Ch30Trace, OutputMapRowsNameTheHeadFeatureTheyReceiveAsInPyTorch) {
  const auto torch = llmfs::testing::load_reference_case("ch30_fixture");
  const auto& merged = torch.at("merged").values;
  const auto& heads = torch.at("head_outputs").values;
  const auto records = parse_trace(golden("trace.txt"));
  std::vector<std::pair<std::size_t, std::size_t>> sources;
  for (std::size_t row = 0; row < 4; ++row) {
    const auto& r = records[26 + row];
    ASSERT_EQ(r.kind, "OUTPUT_MAP");
    EXPECT_EQ(r.at("row"), std::to_string(row));
    const std::size_t head = std::stoul(r.at("head")),
                      feature = std::stoul(r.at("head_feature"));
    ASSERT_LT(head, 2u);
    ASSERT_LT(feature, 2u);
    sources.emplace_back(head, feature);
    for (std::size_t t = 0; t < 3; ++t)
      EXPECT_EQ(merged[t * 4 + row], heads[(head * 3 + t) * 2 + feature])
          << "row " << row << " token " << t;
  }
  const std::vector<std::pair<std::size_t, std::size_t>> expected = {
      {0, 0}, {0, 1}, {1, 0}, {1, 1}};
  EXPECT_EQ(sources, expected);
  // MERGED records: the two head blocks side by side, as torch's head outputs.
  for (std::size_t t = 0; t < 3; ++t) {
    EXPECT_EQ(records[23 + t].at("head_0"),
              printed(std::span(heads).subspan(t * 2, 2)));
    EXPECT_EQ(records[23 + t].at("head_1"),
              printed(std::span(heads).subspan((3 + t) * 2, 2)));
  }
}

// CONFIG's bias and parameter order come from the layer, and agree with the seed: no
// biases, the four matrices in query, key, value, output order.
TEST(Ch30Trace, ConfigRecordStatesTheLayersFacts) {
  const auto records = parse_trace(golden("trace.txt"));
  EXPECT_EQ(records[0].at("bias"), "false");
  EXPECT_FALSE(evidence().output_bias);
  EXPECT_EQ(
      evidence().parameter_names,
      (std::vector<std::string>{"attention.query.weight", "attention.key.weight",
                                "attention.value.weight", "attention.output.weight"}));
  // The exercise-4 counts are the history's table counts: [1,3,3] holds one [3,3]
  // table, [1,2,3,3] two.
  std::map<std::string, std::string> line;
  for (const auto& text : lines_of(golden("expected.txt")))
    line[text.substr(0, text.find('='))] = text.substr(text.find('=') + 1);
  EXPECT_TRUE(line["exercise_4"].starts_with("single_head_tables:1 head_tables:2 "))
      << line["exercise_4"];
}

}  // namespace
