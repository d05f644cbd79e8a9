// Appendix "Outgrowing one machine" (chapter 43): the checkpoint PyTorch wrote after
// two steps of DistributedDataParallel is read by Chapter 35's loader, written again
// byte for byte, continues the C++ run's counters, and gives Chapter 32's forward the
// logits and greedy ids PyTorch computed (python/test_ddp.py checks the Python side).
#include <fmt/format.h>
#include <gtest/gtest.h>

#include <llmfs/core/read_file.hpp>
#include <llmfs/training/safetensors.hpp>

#include "evidence.hpp"

namespace {

using namespace ch43;

const Evidence& evidence() {
  static const Evidence e = gather().value();
  return e;
}

std::string metadata_of(const std::string& file, const std::string& key) {
  const auto bytes =
      llmfs::read_file(std::string(LLMFS_DDP_REFERENCE_DIR) + "/" + file);
  return llmfs::training::decode_tensor_file(bytes.value()).value().metadata.at(key);
}

TEST(Appendix, CppWritesBackTheFilePyTorchWroteByteForByte) {
  EXPECT_EQ(evidence().file_bytes, 69864u);
  EXPECT_EQ(evidence().bytes_equal, evidence().file_bytes);
}

TEST(Appendix, CountersContinueChapter35sCheckpointByTwoSteps) {
  const auto step = std::stoull(metadata_of("ch35_checkpoint.safetensors", "step"));
  const auto t = std::stoull(metadata_of("ch35_checkpoint.safetensors", "adamw.t"));
  EXPECT_EQ(evidence().step, step + 2);
  EXPECT_EQ(evidence().adamw_t, t + 2);
}

// Chapter 35's C++ run resumed from the same file and trained the same two steps on one
// process ends where PyTorch's two processes ended: θ, m, v within 1e-12, counters
// equal.
TEST(Appendix, OneProcessCppContinuationEqualsTwoProcessPyTorch) {
  ASSERT_EQ(evidence().cpp_losses.size(), 2u);
  ASSERT_EQ(evidence().ddp_losses.size(), 2u);
  for (std::size_t i = 0; i < 2; ++i)
    EXPECT_NEAR(evidence().cpp_losses[i], evidence().ddp_losses[i], 1e-12);
  EXPECT_LE(evidence().cpp_max_difference, 1e-12);
  EXPECT_TRUE(evidence().cpp_counters_equal);
}

// Both sides drew their windows from the same data: the book's training partition,
// encoded with the checkpoint's tokenizer, has as many tokens in C++ as in PyTorch (and
// fewer than its 3,773,580 bytes, since a merge only shortens, but more than half).
TEST(Appendix, BothSidesEncodeTheSameTrainingPartition) {
  EXPECT_EQ(evidence().train_tokens, evidence().torch_train_tokens);
  EXPECT_GT(evidence().train_tokens, 3773580u / 2);
  EXPECT_LT(evidence().train_tokens, 3773580u);
}

// C++ -> C++ through round_trip(): a file equals itself in every value and byte; a
// missing file is a typed error naming its path (ch43.round_trip_cpp_torch_cpp runs the
// PyTorch leg).
TEST(Appendix, RoundTripComparesValuesAndBytesAndNamesABadPath) {
  const std::string file =
      std::string(LLMFS_DDP_REFERENCE_DIR) + "/ch35_checkpoint.safetensors";
  const auto same = ch43::round_trip(file, file);
  ASSERT_TRUE(same.has_value());
  EXPECT_TRUE(same->equal());
  EXPECT_EQ(same->values, 8232u);  // 2744 values, 2744 first and 2744 second moments
  EXPECT_EQ(same->bytes, 69864u);
  const std::string other =
      std::string(LLMFS_DDP_REFERENCE_DIR) + "/ch43_continued.safetensors";
  const auto different = ch43::round_trip(file, other);
  ASSERT_TRUE(different.has_value());
  EXPECT_FALSE(different->equal());
  EXPECT_LT(different->values_equal, different->values);
  const auto missing = ch43::round_trip(file, "/nonexistent/ch43.safetensors");
  ASSERT_FALSE(missing.has_value());
  EXPECT_NE(fmt::format("{}", missing.error()).find("/nonexistent/ch43.safetensors"),
            std::string::npos);
}

TEST(Appendix, LogitsEqualPyTorchsWithin1e12) {
  EXPECT_EQ(evidence().torch_values, evidence().prompt.size() * 260);
  EXPECT_EQ(evidence().prompt.size(), 14u);
  EXPECT_LE(evidence().torch_max_difference, 1e-12);
}

TEST(Appendix, GreedyIdsEqualPyTorchsAndStayInContext) {
  EXPECT_TRUE(evidence().torch_greedy_equal);
  EXPECT_EQ(evidence().generated.size(), evidence().prompt.size() + 2);
  EXPECT_LE(evidence().generated.size(), 16u);
}

}  // namespace

namespace {

// The exercises, by hand: Ψ = 2744 (Chapter 35's model), P = 2, B = 2.
TEST(Appendix, ExerciseAnswersByHand) {
  const Evidence& e = evidence();
  EXPECT_EQ(e.parameters, 2744u);
  EXPECT_EQ(e.processes, 2u);
  EXPECT_EQ(e.windows_per_process, 1u);
  EXPECT_EQ(e.allreduce_bytes, 21952u);  // 2·1/2 · 8 · 2744
  const std::vector<std::size_t> zero = {87808, 65856, 54880, 43904};
  EXPECT_EQ(e.zero_bytes, zero);  // 32Ψ; 16Ψ + 8Ψ; 8Ψ + 12Ψ; 16Ψ
}

}  // namespace
