// Chapter 35
#pragma once
// Chapter 35's program: every value its report and trace print, gathered once from
// training/safetensors, training/checkpoint and the decoder of Chapter 32, and the
// functions that render them.

#include <array>
#include <cstdint>
#include <map>
#include <string>
#include <vector>

#include <llmfs/core/splitmix64.hpp>
#include <llmfs/models/decoder.hpp>
#include <llmfs/training/adamw.hpp>
#include <llmfs/training/checkpoint.hpp>

#include "../common/chapter.hpp"
#include "fixture.hpp"

namespace ch35 {

using snippets::Step;

/// A training run in memory: the model, its optimizer, the batch generator, the data.
struct Session {
  llmfs::models::DecoderModel model;
  llmfs::training::AdamW adamw;
  llmfs::SplitMix64 rng{kDataSeed};
  std::vector<llmfs::text::TokenId> tokens;  ///< the training text, encoded
  std::uint64_t step = 0;                    ///< steps done
};

/// The Predict's tiny file.
struct TinyFile {
  std::uint64_t header_bytes = 0, file_bytes = 0;
  std::string one_hex;  ///< the eight bytes of 1.0 as stored
};

/// One span of the checkpoint's bytes: the length, the header, or a tensor.
struct Region {
  std::string name;
  std::uint64_t begin = 0, end = 0;  ///< absolute file offsets
  std::string shape;                 ///< `[a,b]`; empty for length and header
};

/// What happens when a resume leaves one part of the state out.
struct Omission {
  std::string left_out;             ///< e.g. `rng`
  std::size_t first_different = 0;  ///< first step whose loss differs (0: none)
  double max_difference = 0.0;      ///< max |θ − θ_straight| after the last step
};

/// The exercise answers, computed.
struct Exercises {
  std::uint64_t two_layer_data_bytes = 0;         ///< 1
  std::map<std::string, std::size_t> flip_codes;  ///< 2: error description -> flips
  std::size_t flips = 0;                          ///< 2: bits flipped
  bool same_state_same_bytes = false;             ///< 3: saved twice, identical
  bool resumed_bytes_equal_straight = false;      ///< 3: step-8 files identical
};

/// Everything the report and the trace print.
struct Evidence {
  TinyFile tiny;
  std::size_t special_equal = 0;  ///< special doubles back bit for bit, of 8
  std::size_t parameter_count = 0, parameter_tensors = 0;
  std::uint64_t file_bytes = 0, header_bytes = 0, data_bytes = 0;
  std::size_t metadata_entries = 0;
  std::vector<Region> regions;
  std::vector<double> straight, resumed;           ///< losses of steps 1..8 and 5..8
  std::size_t equal_values = 0, total_values = 0;  ///< after step 8: θ, m, v
  bool state_equal = false;                        ///< the whole TrainingState
  bool failed_load_kept_model = false;
  std::vector<Omission> omissions;
  std::vector<std::array<std::string, 2>> errors;
  std::vector<llmfs::text::TokenId> prompt_ids;
  std::vector<double> prompt_logits;   ///< every position, all V
  double python_max_difference = 0.0;  ///< against the Python reader's torch logits
  std::size_t python_values = 0;       ///< logits compared
  Exercises exercises;
};

/// A new run at step 0: the decoder drawn from kConfig.seed, AdamW with one group per
/// parameter in the model's order (λ on matrices only), SplitMix64(kDataSeed).
[[nodiscard]] Step<Session> start();
/// One training step: draw a batch, loss, backward, AdamW; returns the loss.
[[nodiscard]] Step<double> train_step(Session& session);
/// The session as a checkpoint's state.
[[nodiscard]] Step<llmfs::training::TrainingState> capture(const Session& session);
/// A session rebuilt from a checkpoint's state, nothing else.
[[nodiscard]] Step<Session> resume(const llmfs::training::TrainingState& state);
/// The model's parameters as a checkpoint layout (names and shapes, model order).
[[nodiscard]] std::vector<llmfs::training::ParameterSlot> layout_of(
    const llmfs::models::DecoderConfig& config);
/// The logits [1, T, V] of the prompt under `model`, flattened.
[[nodiscard]] Step<std::vector<double>> prompt_logits(
    const llmfs::models::DecoderModel& model, std::vector<llmfs::text::TokenId>& ids);
/// The state after the whole run (kSteps steps, no interruption).
[[nodiscard]] Step<llmfs::training::TrainingState> final_state();
/// Writes final_state() to `path` (`--save PATH`); 0 on success.
int save_final(const char* path);
/// Runs the whole chapter once.
[[nodiscard]] Step<Evidence> gather();

/// The report, one `key=value` line per fact.
[[nodiscard]] std::string render_report(const Evidence& evidence);
/// The trace records the diagram is drawn from.
[[nodiscard]] std::string render_trace(const Evidence& evidence);

}  // namespace ch35
