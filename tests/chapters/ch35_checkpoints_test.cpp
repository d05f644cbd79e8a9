// Chapter 35's claims: the Predict's file by hand; a run resumed from a checkpoint
// taken after any step continues bit for bit; a resume that leaves a part out does not;
// damaged files and wrong models give typed errors; the committed checkpoint is the
// demo's; the Python reader's PyTorch logits match the C++ ones within 1e-12; files
// written by the Python writer (the fuzzer's seeds) are read and re-written byte for
// byte; the exercises.
#include <bit>
#include <cmath>
#include <filesystem>
#include <fstream>
#include <sstream>

#include <gtest/gtest.h>

#include <llmfs/core/read_file.hpp>

#include "evidence.hpp"
#include "support/records.hpp"

namespace {

using namespace ch35;
namespace training = llmfs::training;
using Code = training::CheckpointErrorCode;

const Evidence& evidence() {
  static const Evidence e = gather().value();
  return e;
}

std::string source_file(const std::string& relative) {
  return llmfs::read_file(std::string(LLMFS_SOURCE_DIR) + "/" + relative).value();
}

std::vector<double> flat(const training::TrainingState& s) {
  std::vector<double> out;
  for (const auto& p : s.parameters)
    out.insert(out.end(), p.value.values().begin(), p.value.values().end());
  for (const auto& t : s.optimizer.first_moment)
    out.insert(out.end(), t.values().begin(), t.values().end());
  for (const auto& t : s.optimizer.second_moment)
    out.insert(out.end(), t.values().begin(), t.values().end());
  return out;
}

TEST(Predict, TinyFileByHand) {
  // {"__metadata__":{"llmfs.format":"llmfs-checkpoint","llmfs.format_version":"1",
  // "llmfs.sha256":"<64>"},"w":{"dtype":"F64","shape":[2],"data_offsets":[0,16]}}
  // 16 + 33 + 27 + 80 (15 + 64 + 1) + 1 + 57 + 1 = 215 characters, padded to 216
  const std::string header =
      std::string("{\"__metadata__\":{\"llmfs.format\":\"llmfs-checkpoint\",") +
      "\"llmfs.format_version\":\"1\",\"llmfs.sha256\":\"" + std::string(64, '0') +
      "\"}," + "\"w\":{\"dtype\":\"F64\",\"shape\":[2],\"data_offsets\":[0,16]}}";
  EXPECT_EQ(header.size(), 215u);
  EXPECT_EQ(evidence().tiny.header_bytes, 216u);
  EXPECT_EQ(evidence().tiny.file_bytes, 8u + 216u + 16u);
  EXPECT_EQ(evidence().tiny.one_hex, "00 00 00 00 00 00 f0 3f");  // 0x3FF0000000000000
  EXPECT_EQ(evidence().special_equal, 8u);
}

TEST(Checkpoint, LayoutCountsByHand) {
  const Evidence& e = evidence();
  // P = V·d + N(2d + 4d² + 3·d·d_ff) + d = 2080 + 656 + 8 = 2744
  EXPECT_EQ(e.parameter_count, 2744u);
  EXPECT_EQ(e.data_bytes, 3u * 8u * 2744u);  // θ, m, v
  EXPECT_EQ(e.regions.size(), 2u + 3u * 11u);
  EXPECT_EQ(e.file_bytes, 8 + e.header_bytes + e.data_bytes);
  EXPECT_EQ(e.header_bytes % 8, 0u);
  for (std::size_t i = 1; i < e.regions.size(); ++i)
    EXPECT_EQ(e.regions[i].begin, e.regions[i - 1].end);
}

TEST(Resume, FromEveryStepContinuesBitForBit) {
  const auto straight = final_state().value();
  for (std::size_t save_after = 0; save_after < kSteps; ++save_after) {
    auto session = start().value();
    for (std::size_t s = 0; s < save_after; ++s)
      ASSERT_TRUE(train_step(session).has_value());
    // Through the bytes of a file: encode, decode, bind, rebuild
    const auto file = training::to_tensor_file(capture(session).value()).value();
    const auto bytes = training::encode_tensor_file(file).value();
    const auto state =
        training::from_tensor_file(training::decode_tensor_file(bytes).value(),
                                   layout_of(kConfig))
            .value();
    auto resumed = resume(state).value();
    for (std::size_t s = save_after; s < kSteps; ++s)
      ASSERT_TRUE(train_step(resumed).has_value());
    const auto end = capture(resumed).value();
    EXPECT_TRUE(end == straight) << "saved after step " << save_after;
    const auto a = flat(end), b = flat(straight);
    ASSERT_EQ(a.size(), b.size());
    for (std::size_t i = 0; i < a.size(); ++i)
      ASSERT_EQ(std::bit_cast<std::uint64_t>(a[i]), std::bit_cast<std::uint64_t>(b[i]))
          << i;
  }
}

TEST(Resume, ReportShowsIdenticalLossesAndDivergingOmissions) {
  const Evidence& e = evidence();
  ASSERT_EQ(e.resumed.size(), kSteps - kSaveAfter);
  for (std::size_t s = 0; s < e.resumed.size(); ++s)
    EXPECT_EQ(std::bit_cast<std::uint64_t>(e.resumed[s]),
              std::bit_cast<std::uint64_t>(e.straight[kSaveAfter + s]));
  EXPECT_EQ(e.equal_values, e.total_values);
  EXPECT_EQ(e.total_values, 3u * 2744u);
  EXPECT_TRUE(e.state_equal);
  ASSERT_EQ(e.omissions.size(), 3u);
  // A new generator draws other batches at once; lost moments or t change the first
  // update, which shows in the loss of the step after it.
  EXPECT_EQ(e.omissions[0].first_different, kSaveAfter + 1);
  EXPECT_EQ(e.omissions[1].first_different, kSaveAfter + 2);
  EXPECT_EQ(e.omissions[2].first_different, kSaveAfter + 2);
  for (const Omission& o : e.omissions)
    EXPECT_GT(o.max_difference, 1e-3) << o.left_out;
}

TEST(Errors, DamagedFilesAndWrongModelsAreTyped) {
  const Evidence& e = evidence();
  std::map<std::string, std::string> text;
  for (const auto& [name, t] : e.errors)
    text[name] = t;
  EXPECT_NE(text["truncated"].find("file is truncated"), std::string::npos);
  EXPECT_NE(text["bit_flip"].find(", checksum: checksum mismatch"), std::string::npos);
  EXPECT_NE(
      text["oversized_header"].find("at byte 0, header length: header is too large"),
      std::string::npos);
  EXPECT_NE(text["wrong_version"].find("unsupported format version (version '2'"),
            std::string::npos);
  EXPECT_NE(text["wrong_shape"].find("bind: shape mismatch"), std::string::npos);
  EXPECT_NE(text["missing_tensor"].find("bind: missing entry"), std::string::npos);
  EXPECT_EQ(
      text["other_partition"],
      "resume: step failed (the checkpoint belongs to another run: its configuration, "
      "tokenizer or partition differs)");
  text.erase("other_partition");  // a whole, valid file: not a load error
  for (const auto& [name, t] : text)
    EXPECT_TRUE(t.starts_with("checkpoint step-4.safetensors at byte ")) << name;
  EXPECT_TRUE(e.failed_load_kept_model);
}

TEST(Errors, BindingChecksEveryEntry) {
  auto file = training::to_tensor_file(final_state().value()).value();
  const auto layout = layout_of(kConfig);
  auto changed = file;
  changed.tensors.push_back({"model.extra", {1}, {0.0}});
  EXPECT_EQ(training::from_tensor_file(changed, layout).error().code,
            Code::unexpected_entry);
  changed = file;
  changed.metadata["step"] = "-1";
  EXPECT_EQ(training::from_tensor_file(changed, layout).error().code, Code::bad_value);
  changed = file;
  changed.metadata.erase("rng.state");
  EXPECT_EQ(training::from_tensor_file(changed, layout).error().code,
            Code::missing_entry);
  changed = file;
  changed.metadata["tokenizer.merges"] = "not a merges file";
  EXPECT_EQ(training::from_tensor_file(changed, layout).error().code, Code::bad_value);
  changed = file;
  changed.tensors[0].shape = {8, 260};
  EXPECT_EQ(training::from_tensor_file(changed, layout).error().code,
            Code::shape_mismatch);
  EXPECT_TRUE(training::from_tensor_file(file, layout).has_value());
}

TEST(Reference, CommittedCheckpointIsTheDemos) {
  const auto file = training::to_tensor_file(final_state().value()).value();
  EXPECT_EQ(training::encode_tensor_file(file).value(),
            source_file("tests/reference/data/training/ch35_checkpoint.safetensors"));
}

TEST(Reference, PythonReaderLogitsMatchWithin1e12) {
  const auto state =
      training::load_checkpoint(
          std::string(LLMFS_SOURCE_DIR) +
              "/tests/reference/data/training/ch35_checkpoint.safetensors",
          layout_of(kConfig))
          .value();
  std::vector<llmfs::tensor::Tensor> values;
  for (const auto& p : state.parameters)
    values.push_back(p.value);
  const auto model = llmfs::models::DecoderModel::from_values(kConfig, values).value();
  std::vector<llmfs::text::TokenId> ids;
  const auto logits = prompt_logits(model, ids).value();
  const auto records = llmfs::testing::read_keyed_records(
      "tests/reference/data/training/ch35_logits.txt");
  std::size_t rows = 0;
  double worst = 0.0;
  for (const auto& r : records) {
    if (r.kind == "PROMPT") {
      std::vector<std::string> want;
      std::stringstream list(r.fields.at("ids"));
      for (std::string id; std::getline(list, id, ',');)
        want.push_back(id);
      ASSERT_EQ(want.size(), ids.size());
      for (std::size_t i = 0; i < ids.size(); ++i)
        EXPECT_EQ(std::stoi(want[i]), ids[i]);
    }
    if (r.kind != "LOGITS") continue;
    const std::size_t t = std::stoul(r.fields.at("position"));
    std::stringstream list(r.fields.at("values"));
    std::size_t v = 0;
    for (std::string x; std::getline(list, x, ','); ++v)
      worst =
          std::max(worst, std::abs(std::stod(x) - logits[t * kConfig.vocab_size + v]));
    EXPECT_EQ(v, kConfig.vocab_size);
    ++rows;
  }
  EXPECT_EQ(rows, ids.size());
  EXPECT_LE(worst, 1e-12);
  // and the demo's report prints the same model's logits (it resumed; the file did not)
  const Evidence& e = evidence();
  ASSERT_EQ(e.prompt_logits.size(), logits.size());
  for (std::size_t i = 0; i < logits.size(); ++i)
    EXPECT_EQ(std::bit_cast<std::uint64_t>(e.prompt_logits[i]),
              std::bit_cast<std::uint64_t>(logits[i]));
}

TEST(Reference, PythonWrittenSeedsReadAndRewriteByteForByte) {
  std::size_t valid = 0, refused = 0;
  for (const auto& entry : std::filesystem::directory_iterator(
           std::string(LLMFS_SOURCE_DIR) + "/tests/fuzz/corpus")) {
    const std::string bytes = llmfs::read_file(entry.path()).value();
    const auto decoded =
        training::decode_tensor_file(bytes, entry.path().filename().string());
    if (entry.path().filename().string().starts_with("valid-")) {
      ASSERT_TRUE(decoded.has_value()) << fmt::format("{}", decoded.error());
      EXPECT_EQ(training::encode_tensor_file(*decoded).value(), bytes) << entry.path();
      ++valid;
    } else {
      EXPECT_FALSE(decoded.has_value()) << entry.path();
      ++refused;
    }
  }
  EXPECT_EQ(valid, 5u);
  EXPECT_EQ(refused, 4u);
}

TEST(Exercises, AnswersAgreeWithHandDerivations) {
  const Exercises& x = evidence().exercises;
  // 1: N = 2 adds one block of 2d + 4d² + 3·d·d_ff = 656 parameters: 3400 · 3 · 8 bytes
  EXPECT_EQ(x.two_layer_data_bytes, 3400u * 3u * 8u);
  // 2: every one of the 240 · 8 flips of the tiny file is refused
  EXPECT_EQ(x.flips, 240u * 8u);
  EXPECT_EQ(x.flip_codes.count("accepted"), 0u);
  std::size_t total = 0;
  for (const auto& [code, count] : x.flip_codes)
    total += count;
  EXPECT_EQ(total, x.flips);
  // the 8 · 16 bits of the two values can only be caught by the checksum
  EXPECT_GE(x.flip_codes.at("checksum mismatch"), 128u);
  // 3: the writer is deterministic: no time, no address, no map order in the bytes
  EXPECT_TRUE(x.same_state_same_bytes);
  EXPECT_TRUE(x.resumed_bytes_equal_straight);
}

}  // namespace
