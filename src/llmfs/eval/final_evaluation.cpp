// Chapter 34
#include <string>
#include <utility>

#include <fmt/format.h>

#include <llmfs/core/try.hpp>
#include <llmfs/eval/final_evaluation.hpp>

namespace llmfs::eval {

std::string_view describe(FinalErrorCode code) noexcept {
  switch (code) {
    case FinalErrorCode::already_scored: return "test set already scored";
    case FinalErrorCode::bad_config: return "invalid evaluation configuration";
    case FinalErrorCode::stage_failed: return "a stage of the final evaluation failed";
  }
  return "unknown final-evaluation error";
}

SealedTestSet SealedTestSet::seal(training::ExampleSet test, std::size_t bytes) {
  return SealedTestSet(std::move(test), bytes);
}

// region: sealed-move
SealedTestSet::SealedTestSet(SealedTestSet&& other) noexcept
    : test_(std::exchange(other.test_, std::nullopt)), bytes_(other.bytes_) {}

SealedTestSet& SealedTestSet::operator=(SealedTestSet&& other) noexcept {
  test_ = std::exchange(other.test_, std::nullopt);  // std::optional's own move
  bytes_ = other.bytes_;                             // would leave `other` engaged
  return *this;
}
// endregion: sealed-move

/// The one place that opens a sealed test set.
struct FinalAccess {
  /// Takes the examples out, leaving the handle empty.
  static std::optional<training::ExampleSet> open(SealedTestSet& test) noexcept {
    return std::exchange(test.test_, std::nullopt);
  }
  /// The bytes the predicted positions spell.
  static std::size_t bytes(const SealedTestSet& test) noexcept { return test.bytes_; }
};

namespace {

// region: final-checks
/// Refuses an opened (or moved-from) handle, then a configuration that cannot score;
/// opens nothing.
[[nodiscard]] std::expected<void, FinalError> check_final(
    const SealedTestSet& test, std::span<const Contender> contenders,
    const training::TrainConfig& config) {
  if (!test.sealed())
    return reject(FinalErrorCode::already_scored, "final evaluation",
                  "the handle is empty: scored before, or moved to another handle");
  if (config.batch_size == 0 || config.windows.context == 0 || contenders.empty())
    return reject(FinalErrorCode::bad_config, "final evaluation",
                  fmt::format("B={} T={} contenders={}", config.batch_size,
                              config.windows.context, contenders.size()));
  return {};
}
// endregion: final-checks

}  // namespace

// region: final-body
std::expected<std::vector<FinalScore>, FinalError> final_evaluation(
    SealedTestSet&& test, std::span<const Contender> contenders,
    const training::TrainConfig& config) {
  LLMFS_TRY(check_final(test, contenders, config));
  // Open it: from here on the handle is empty, whatever happens next
  const std::size_t bytes = FinalAccess::bytes(test);
  const training::ExampleSet examples = *FinalAccess::open(test);
  const std::size_t positions = examples.examples.size() * config.windows.context;
  std::vector<FinalScore> table;
  for (const Contender& c : contenders) {
    const std::string stage = "final evaluation of " + c.name;
    const double loss = LLMFS_TRY_AT(
        stage, training::validation_loss(c.model, c.values, examples, config));
    const std::size_t tokens = c.tokens ? c.tokens(examples) : positions;
    const Score score{loss * static_cast<double>(positions), tokens, bytes};
    table.push_back({c.name, LLMFS_TRY_AT(stage, summarize(score))});
  }
  return table;
}
// endregion: final-body

}  // namespace llmfs::eval
