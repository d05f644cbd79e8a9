// Chapter 39
#pragma once
// Chapter 39's program: the demo (the whole pipeline at toy size on two documents of
// each partition, and generation's refusals), the long run behind `--train-long`
// (make train) and the reader's generation behind `--generate` (make generate).

#include <array>
#include <expected>
#include <initializer_list>
#include <map>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "pipeline.hpp"

namespace ch39 {

/// Everything the report and the trace print.
struct Evidence {
  PipelineResult run;                        ///< the demo run
  PipelineResult again;                      ///< the same run again: equal, bit for bit
  bool repeat_equal = false;                 ///< selected values and every loss equal
  std::size_t corpus_validation_tokens = 0;  ///< predicted tokens of the 2 documents
  /// Generation from the saved model file: it reads back the selected values.
  bool model_file_round_trip = false;
  std::vector<llmfs::text::TokenId> long_generation;  ///< past T_max: sliding window
  std::vector<llmfs::text::TokenId> empty_prompt;     ///< from BOS alone
  std::vector<std::array<std::string, 2>> errors;     ///< case, error text
  std::array<double, 4> exercises{};
};

/// Runs the demo once.
[[nodiscard]] Step<Evidence> gather();
/// `--train-long --out PREFIX --model FILE [--checkpoint FILE] [--steps S]`.
int train_long(int argc, char** argv);
/// `--generate --model FILE [--prompt TEXT] …`: text from the model file.
int generate_cli(int argc, char** argv);

/// The `--flag value` pairs after argv[1] (`--greedy` takes none), every flag one of
/// `known`. \return the unknown flag or the flag missing its value, as a message.
[[nodiscard]] std::expected<std::map<std::string, std::string>, std::string> flags(
    int argc, char** argv, std::initializer_list<std::string_view> known);
/// The samples as TSV lines: the prompt and text as JSON strings, τ (or `greedy`), k.
[[nodiscard]] std::string samples_text(std::span<const Sample> samples);

/// The report, one `key=value` line per fact.
[[nodiscard]] std::string render_report(const Evidence& evidence);
/// The trace records the diagram is drawn from.
[[nodiscard]] std::string render_trace(const Evidence& evidence);

}  // namespace ch39
