// Chapter 39
// The demo's evidence: the pipeline at toy size twice from one seed, the model file
// read back, and generation's documented behaviours and refusals.
#include "evidence.hpp"

#include <cstdio>
#include <filesystem>

#include <llmfs/text/merges_file.hpp>

#include <unistd.h>

namespace ch39 {

namespace {

bool same_run(const PipelineResult& a, const PipelineResult& b) {
  return a.run.steps == b.run.steps && a.run.evaluations == b.run.evaluations &&
         a.run.selected.step() == b.run.selected.step() &&
         std::ranges::equal(a.run.selected.values(), b.run.selected.values()) &&
         a.validation.total == b.validation.total;
}

// A file `name` in a directory of this process's own, removed with it when the holder
// goes (so that the name an error prints is the same in every run).
struct TempFile {
  std::filesystem::path directory, path;
  explicit TempFile(std::string_view name)
      : directory(std::filesystem::temp_directory_path() /
                  fmt::format("ch39-{}", getpid())),
        path(directory / name) {
    std::error_code ignored;
    std::filesystem::create_directories(directory, ignored);
  }
  ~TempFile() {
    std::error_code ignored;
    std::filesystem::remove(path, ignored);
    std::filesystem::remove(directory, ignored);
  }
};

}  // namespace

Step<Evidence> gather() {
  Evidence e;
  const auto corpus = LLMFS_TRY(load_corpus(kDemoDocuments));
  const TempFile model_file("model.safetensors"), other_file("other.safetensors");
  e.run =
      LLMFS_TRY(run_pipeline(demo_settings(), corpus, nullptr, {}, model_file.path));
  e.again = LLMFS_TRY(run_pipeline(demo_settings(), corpus, nullptr, {}, {}));
  e.repeat_equal = same_run(e.run, e.again);
  e.corpus_validation_tokens = corpus.validation.tokens;
  // The model file gives back the selected values, bit for bit
  const auto& tokenizer = *corpus.tokenizer;
  const auto loaded = LLMFS_TRY_AT("load", load_model(model_file.path, tokenizer));
  auto unseeded = kDemoModel;
  unseeded.seed = 0;  // the file keeps the sizes, not the seed of the first values
  e.model_file_round_trip =
      std::ranges::equal(loaded.values, e.run.run.selected.values()) &&
      loaded.config == unseeded && loaded.step == e.run.run.selected.step();
  // Documented behaviours: past T_max (a sliding window), an empty prompt (from BOS)
  const llmfs::generation::SamplingConfig greedy = kSettings[0];
  e.long_generation = LLMFS_TRY_AT(
      "long", generate(loaded, tokenizer, "In the", kDemoContext + 8, greedy, 1));
  e.empty_prompt = LLMFS_TRY_AT("empty", generate(loaded, tokenizer, "", 6, greedy, 1));
  // Refusals: bytes that are not UTF-8, no tokens, τ = 0, another tokenizer's file
  auto error_of = [&](std::string name, const auto& result) {
    e.errors.push_back({std::move(name), result ? std::string("accepted")
                                                : fmt::format("{}", result.error())});
  };
  error_of("prompt \\xff\\xfe", generate(loaded, tokenizer, "\xff\xfe", 4, greedy, 1));
  error_of("zero tokens", generate(loaded, tokenizer, "In", 0, greedy, 1));
  error_of("temperature 0", generate(loaded, tokenizer, "In", 4, {0.0}, 1));
  const auto fewer = LLMFS_TRY_AT(
      "other tokenizer",
      llmfs::text::Tokenizer::create(
          {{tokenizer.merges().merges.begin(), tokenizer.merges().merges.end() - 1}}));
  LLMFS_TRY_AT("other file", save_model(other_file.path, loaded, fewer));
  error_of("other tokenizer", load_model(other_file.path, tokenizer));
  error_of("missing file", load_model("/nonexistent/ch39.safetensors", tokenizer));
  // Exercises
  const auto& table = e.run.table;
  e.exercises[0] = static_cast<double>(e.run.parameters);
  e.exercises[1] = static_cast<double>(kModel.vocab_size * kModel.model_width);
  e.exercises[2] = table[2].metrics.bits_per_byte / table[1].metrics.bits_per_byte;
  e.exercises[3] = static_cast<double>(corpus.validation.bytes) /
                   static_cast<double>(corpus.validation.tokens);
  return e;
}

}  // namespace ch39
