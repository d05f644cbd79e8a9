// Chapter 35
// The chapter's evidence: the tiny file, the special doubles, a run of the decoder
// interrupted by a checkpoint and resumed, resumes that leave a part out, damaged
// files.
#include "evidence.hpp"

#include <bit>
#include <cmath>
#include <cstring>
#include <filesystem>

#include <fmt/format.h>
#include <fmt/ranges.h>

#include <llmfs/autograd/tape.hpp>
#include <llmfs/core/read_file.hpp>
#include <llmfs/text/tokenizer.hpp>
#include <llmfs/training/batches.hpp>

namespace ch35 {

using llmfs::SplitMix64;
using llmfs::autograd::TokenGrid;
using llmfs::tensor::Tensor;
using llmfs::text::TokenId;
namespace models = llmfs::models;
namespace training = llmfs::training;

namespace {

// Each parameter its own group, in the model's order, so that AdamW's slot order is
// the model's: λ for matrices, 0 for gains (Chapter 22's rule).
std::vector<training::ParameterGroup> groups_in_model_order(
    const models::DecoderConfig& config) {
  std::vector<training::ParameterGroup> groups;
  for (const auto& spec : models::decoder_parameter_specs(config))
    groups.push_back({spec.name,
                      spec.shape.rank() >= 2 ? kWeightDecay : 0.0,
                      {{spec.name, spec.shape}}});
  return groups;
}

std::map<std::string, std::string> config_entries() {
  using training::exact_decimal;
  const models::DecoderConfig& c = kConfig;
  return {{"model.vocab_size", fmt::format("{}", c.vocab_size)},
          {"model.model_width", fmt::format("{}", c.model_width)},
          {"model.heads", fmt::format("{}", c.heads)},
          {"model.layers", fmt::format("{}", c.layers)},
          {"model.hidden_width", fmt::format("{}", c.hidden_width)},
          {"model.context_length", fmt::format("{}", c.context_length)},
          {"model.rope_base", exact_decimal(c.rope_base)},
          {"model.epsilon", exact_decimal(c.epsilon)},
          {"adamw.learning_rate", exact_decimal(kHyper.learning_rate)},
          {"adamw.beta1", exact_decimal(kHyper.beta1)},
          {"adamw.beta2", exact_decimal(kHyper.beta2)},
          {"adamw.epsilon", exact_decimal(kHyper.epsilon)},
          {"adamw.weight_decay", exact_decimal(kWeightDecay)},
          {"batch.size", fmt::format("{}", kBatch)},
          {"batch.tokens", fmt::format("{}", kTokens)}};
}

// B windows of T + 1 tokens at starts drawn uniformly: inputs and next-token targets.
std::array<TokenGrid, 2> draw_batch(const std::vector<TokenId>& tokens,
                                    SplitMix64& rng) {
  TokenGrid inputs{kBatch, kTokens, {}}, targets{kBatch, kTokens, {}};
  for (std::size_t b = 0; b < kBatch; ++b) {
    const std::size_t s = training::bounded(rng, tokens.size() - kTokens);
    inputs.ids.insert(inputs.ids.end(), tokens.begin() + s,
                      tokens.begin() + s + kTokens);
    targets.ids.insert(targets.ids.end(), tokens.begin() + s + 1,
                       tokens.begin() + s + kTokens + 1);
  }
  return {inputs, targets};
}

[[nodiscard]] Step<std::vector<TokenId>> encode_text() {
  const auto tokenizer =
      LLMFS_TRY_AT("tokenizer", llmfs::text::Tokenizer::create(merges()));
  return tokenizer.encode(kText);
}

std::string hex(std::string_view bytes) {
  std::string out;
  for (unsigned char c : bytes)
    out += fmt::format("{}{:02x}", out.empty() ? "" : " ", c);
  return out;
}

std::uint64_t header_length(std::string_view bytes) {
  std::uint64_t n = 0;
  for (int i = 7; i >= 0; --i)
    n = (n << 8) | static_cast<unsigned char>(bytes[i]);
  return n;
}

// The flattened values of θ, then m, then v.
std::vector<double> all_values(const training::TrainingState& s) {
  std::vector<double> out;
  for (const auto& p : s.parameters)
    out.insert(out.end(), p.value.values().begin(), p.value.values().end());
  for (const auto* moments : {&s.optimizer.first_moment, &s.optimizer.second_moment})
    for (const Tensor& t : *moments)
      out.insert(out.end(), t.values().begin(), t.values().end());
  return out;
}

// The SHA-256 of the partition manifest the run's data comes from (Chapter 2).
[[nodiscard]] Step<std::string> partition_hash() {
  const auto manifest =
      LLMFS_TRY_AT("manifest", llmfs::read_file(LLMFS_PARTITIONS_PATH));
  return training::sha256_hex_of(manifest);
}

}  // namespace

std::vector<training::ParameterSlot> layout_of(const models::DecoderConfig& config) {
  std::vector<training::ParameterSlot> slots;
  for (const auto& spec : models::decoder_parameter_specs(config))
    slots.push_back({spec.name, spec.shape});
  return slots;
}

Step<Session> start() {
  auto model = LLMFS_TRY_AT("model", models::DecoderModel::create(kConfig));
  auto adamw = LLMFS_TRY_AT(
      "adamw", training::AdamW::create(kHyper, groups_in_model_order(kConfig)));
  auto tokens = LLMFS_TRY(encode_text());
  return Session{std::move(model), std::move(adamw), SplitMix64(kDataSeed),
                 std::move(tokens), 0};
}

// region: train-step
Step<double> train_step(Session& session) {
  const auto [inputs, targets] = draw_batch(session.tokens, session.rng);
  const auto loss = LLMFS_TRY_AT("loss", session.model.loss(inputs, targets));
  LLMFS_TRY_AT("backward", llmfs::autograd::backward(loss, Tensor::scalar(1.0)));
  std::vector<Tensor> gradients;
  for (const auto& parameter : session.model.parameters())
    gradients.push_back(LLMFS_TRY_AT("gradient", parameter.value.gradient()));
  auto values = LLMFS_TRY_AT("values", session.model.values());
  LLMFS_TRY_AT("adamw", session.adamw.step(values, gradients));
  LLMFS_TRY_AT("update", session.model.set_values(std::move(values)));
  ++session.step;
  return LLMFS_TRY_AT("loss value", loss.value()).values()[0];
}
// endregion: train-step

Step<training::TrainingState> capture(const Session& session) {
  training::TrainingState state;
  const auto values = LLMFS_TRY_AT("values", session.model.values());
  const auto& parameters = session.model.parameters().items();
  for (std::size_t i = 0; i < values.size(); ++i)
    state.parameters.push_back({parameters[i].name, values[i]});
  state.optimizer = session.adamw.state();
  state.step = session.step;
  state.rng = session.rng;
  state.tokenizer = merges();
  state.config = config_entries();
  state.partition_sha256 = LLMFS_TRY(partition_hash());
  return state;
}

// region: resume
Step<Session> resume(const training::TrainingState& state) {
  // The run it continues must be this one: same settings, tokenizer and data partition
  if (state.config != config_entries() || !(state.tokenizer == merges()) ||
      state.partition_sha256 != LLMFS_TRY(partition_hash()))
    return llmfs::reject(snippets::StepCode::failed, "resume",
                         "the checkpoint belongs to another run: its configuration, "
                         "tokenizer or partition differs");
  std::vector<Tensor> values;
  for (const auto& parameter : state.parameters)
    values.push_back(parameter.value);
  auto model =
      LLMFS_TRY_AT("model", models::DecoderModel::from_values(kConfig, values));
  auto adamw = LLMFS_TRY_AT(
      "adamw", training::AdamW::create(kHyper, groups_in_model_order(kConfig)));
  LLMFS_TRY_AT("adamw restore", adamw.restore(state.optimizer));
  auto tokens = LLMFS_TRY(encode_text());
  return Session{std::move(model), std::move(adamw), state.rng, std::move(tokens),
                 state.step};
}
// endregion: resume

Step<std::vector<double>> prompt_logits(const models::DecoderModel& model,
                                        std::vector<TokenId>& ids) {
  const auto tokenizer =
      LLMFS_TRY_AT("tokenizer", llmfs::text::Tokenizer::create(merges()));
  ids = tokenizer.encode(kPrompt);
  const TokenGrid grid{1, ids.size(), ids};
  const auto logits = LLMFS_TRY_AT("prompt", model.forward(grid));
  const auto value = LLMFS_TRY_AT("prompt logits", logits.value());
  return std::vector<double>(value.values().begin(), value.values().end());
}

Step<training::TrainingState> final_state() {
  auto session = LLMFS_TRY(start());
  for (std::size_t s = 0; s < kSteps; ++s)
    LLMFS_TRY(train_step(session));
  return capture(session);
}

int save_final(const char* path) {
  const auto state = final_state();
  const auto saved = state ? training::save_checkpoint(path, *state)
                           : std::expected<void, training::CheckpointError>{};
  if (!state || !saved) {
    fmt::print(
        stderr, "ch35-checkpoints: {}\n",
        state ? fmt::format("{}", saved.error()) : fmt::format("{}", state.error()));
    return 1;
  }
  return 0;
}

namespace {

// The Predict's file and the special doubles.
[[nodiscard]] Step<void> tiny_file(Evidence& e) {
  training::TensorFile tiny;
  tiny.tensors.push_back({"w", {2}, {kTinyValues.begin(), kTinyValues.end()}});
  const std::string bytes = LLMFS_TRY_AT("tiny", training::encode_tensor_file(tiny));
  e.tiny = {header_length(bytes), bytes.size(),
            hex(std::string_view(bytes).substr(bytes.size() - 16, 8))};
  training::TensorFile special;
  special.tensors.push_back({"special", {8}, {kSpecial.begin(), kSpecial.end()}});
  const auto back =
      LLMFS_TRY_AT("special", training::decode_tensor_file(LLMFS_TRY_AT(
                                  "special", training::encode_tensor_file(special))));
  for (std::size_t i = 0; i < kSpecial.size(); ++i)
    e.special_equal += std::bit_cast<std::uint64_t>(back.tensors[0].values[i]) ==
                       std::bit_cast<std::uint64_t>(kSpecial[i]);
  // Exercise 2: every single-bit flip of the tiny file, by the error it gives
  for (std::size_t at = 0; at < bytes.size(); ++at)
    for (int bit = 0; bit < 8; ++bit) {
      std::string flipped = bytes;
      flipped[at] = static_cast<char>(flipped[at] ^ (1 << bit));
      const auto decoded = training::decode_tensor_file(flipped);
      ++e.exercises.flips;
      ++e.exercises.flip_codes[decoded ? "accepted"
                                       : std::string(describe(decoded.error().code))];
    }
  return {};
}

// The checkpoint's byte layout, read back from its header.
[[nodiscard]] Step<void> layout(Evidence& e, const std::string& bytes) {
  const auto file = LLMFS_TRY_AT("layout", training::decode_tensor_file(bytes));
  e.file_bytes = bytes.size();
  e.header_bytes = header_length(bytes);
  e.data_bytes = e.file_bytes - 8 - e.header_bytes;
  e.metadata_entries = file.metadata.size() + 3;  // and the three llmfs.* entries
  e.regions.push_back({"length", 0, 8, ""});
  e.regions.push_back({"header", 8, 8 + e.header_bytes, ""});
  std::uint64_t at = 8 + e.header_bytes;
  for (const auto& t : file.tensors) {
    e.regions.push_back({t.name, at, at + 8 * t.values.size(),
                         fmt::format("[{}]", fmt::join(t.shape, ","))});
    at += 8 * t.values.size();
  }
  return {};
}

// A copy of `bytes` with `from` replaced by `to` once and the checksum sealed again.
std::string edited(std::string bytes, std::string_view from, std::string_view to) {
  bytes.replace(bytes.find(from), from.size(), to);
  (void)training::seal_checksum(bytes);
  return bytes;
}

// Damaged files and wrong models: each load's typed error.
void errors(Evidence& e, const std::string& bytes) {
  const auto layout = layout_of(kConfig);
  const auto load = [&](std::string_view name, const std::string& data,
                        const std::vector<training::ParameterSlot>& slots) {
    const auto file = training::decode_tensor_file(data, "step-4.safetensors");
    e.errors.push_back(
        {std::string(name), file ? snippets::error_text(training::from_tensor_file(
                                       *file, slots, "step-4.safetensors"))
                                 : fmt::format("{}", file.error())});
  };
  std::string flipped = bytes;
  flipped[bytes.size() / 2] ^= 0x10;
  std::string oversized = bytes;
  std::memset(oversized.data(), 0xFF, 8);
  models::DecoderConfig wider = kConfig, deeper = kConfig;
  wider.hidden_width = 32;
  deeper.layers = 2;
  load("truncated", bytes.substr(0, bytes.size() - 1), layout);
  load("bit_flip", flipped, layout);
  load("oversized_header", oversized, layout);
  load(
      "wrong_version",
      edited(bytes, "\"llmfs.format_version\":\"1\"", "\"llmfs.format_version\":\"2\""),
      layout);
  load("wrong_shape", bytes, layout_of(wider));
  load("missing_tensor", bytes, layout_of(deeper));
}

// The largest |z − z_torch| over the logits the Python reader computed from the
// committed checkpoint (tests/reference/data/training/ch35_logits.txt).
[[nodiscard]] Step<void> python_logits(Evidence& e) {
  const auto text = LLMFS_TRY_AT(
      "reference", llmfs::read_file(LLMFS_CHECKPOINT_REFERENCE_DIR "/ch35_logits.txt"));
  std::size_t row = 0;
  for (std::size_t at = text.find("LOGITS|"); at != std::string::npos;
       at = text.find("LOGITS|", at + 1), ++row) {
    std::string_view rest(text.data() + text.find("values=", at) + 7);
    rest = rest.substr(0, rest.find('\n'));
    for (std::size_t v = 0; !rest.empty(); ++v) {
      const std::size_t comma = std::min(rest.find(','), rest.size());
      const double torch = std::stod(std::string(rest.substr(0, comma)));
      const double ours = e.prompt_logits.at(row * kConfig.vocab_size + v);
      e.python_max_difference =
          std::max(e.python_max_difference, std::abs(ours - torch));
      ++e.python_values;
      rest.remove_prefix(std::min(comma + 1, rest.size()));
    }
  }
  return {};
}

// Resumes that leave one part of the state out, against the straight run.
[[nodiscard]] Step<void> omissions(Evidence& e, const training::TrainingState& saved,
                                   const training::TrainingState& straight_end) {
  const std::vector<double> straight_values = all_values(straight_end);
  for (const std::string left_out : {"rng", "moments", "adamw_t"}) {
    training::TrainingState state = saved;
    if (left_out == "rng") state.rng = SplitMix64(kDataSeed);
    if (left_out == "moments") state.optimizer = {};
    if (left_out == "adamw_t") state.optimizer.step = 0;
    if (left_out == "moments")
      for (const auto& p : state.parameters) {
        state.optimizer.first_moment.push_back(Tensor::zeros(p.value.shape()));
        state.optimizer.second_moment.push_back(Tensor::zeros(p.value.shape()));
      }
    auto session = LLMFS_TRY(resume(state));
    Omission o{left_out, 0, 0.0};
    for (std::size_t s = kSaveAfter; s < kSteps; ++s) {
      const double loss = LLMFS_TRY(train_step(session));
      if (o.first_different == 0 && loss != e.straight[s]) o.first_different = s + 1;
    }
    const auto end = LLMFS_TRY(capture(session));
    const std::vector<double> values = all_values(end);
    for (std::size_t i = 0; i < values.size(); ++i)
      o.max_difference =
          std::max(o.max_difference, std::abs(values[i] - straight_values[i]));
    e.omissions.push_back(o);
  }
  return {};
}

}  // namespace

Step<Evidence> gather() {
  Evidence e;
  LLMFS_TRY(tiny_file(e));
  // The straight run: kSteps steps without a stop
  auto straight = LLMFS_TRY(start());
  e.parameter_count = straight.model.parameter_count();
  e.parameter_tensors = straight.model.parameters().size();
  training::TrainingState saved;
  for (std::size_t s = 0; s < kSteps; ++s) {
    e.straight.push_back(LLMFS_TRY(train_step(straight)));
    if (s + 1 == kSaveAfter) saved = LLMFS_TRY(capture(straight));
  }
  const auto straight_end = LLMFS_TRY(capture(straight));
  // The interrupted run: save after step kSaveAfter, read back from disk, continue
  const auto dir = std::filesystem::temp_directory_path() /
                   fmt::format("ch35-checkpoints-{}", ::getpid());
  std::filesystem::create_directories(dir);
  const auto path = dir / "step-4.safetensors";
  LLMFS_TRY_AT("save", training::save_checkpoint(path, saved));
  const auto loaded = training::load_checkpoint(path, layout_of(kConfig));
  const auto bytes = llmfs::read_file(path);
  std::filesystem::remove_all(dir);
  auto resumed = LLMFS_TRY(resume(LLMFS_TRY_AT("load", loaded)));
  for (std::size_t s = kSaveAfter; s < kSteps; ++s)
    e.resumed.push_back(LLMFS_TRY(train_step(resumed)));
  const auto resumed_end = LLMFS_TRY(capture(resumed));
  // Compare every value bit for bit, then the whole state
  const auto a = all_values(straight_end), b = all_values(resumed_end);
  e.total_values = a.size();
  for (std::size_t i = 0; i < a.size(); ++i)
    e.equal_values +=
        std::bit_cast<std::uint64_t>(a[i]) == std::bit_cast<std::uint64_t>(b[i]);
  e.state_equal = straight_end == resumed_end;
  // The rest of the chapter's evidence
  const std::string file = LLMFS_TRY_AT("read", bytes);
  LLMFS_TRY(layout(e, file));
  errors(e, file);
  training::TrainingState other =
      saved;  // a file of another run: the resume refuses it
  other.partition_sha256.back() ^= 1;
  e.errors.push_back({"other_partition", snippets::error_text(resume(other))});
  const auto before = LLMFS_TRY_AT("values", resumed.model.values());
  const auto refused = training::decode_tensor_file(file.substr(0, 100));
  e.failed_load_kept_model =
      !refused && before == LLMFS_TRY_AT("values", resumed.model.values());
  LLMFS_TRY(omissions(e, saved, straight_end));
  e.prompt_logits = LLMFS_TRY(prompt_logits(resumed.model, e.prompt_ids));
  LLMFS_TRY(python_logits(e));
  // Exercises 1 and 3
  auto two_layers = kConfig;
  two_layers.layers = 2;
  training::TrainingState deep = saved;
  deep.parameters.clear();
  deep.optimizer = {};
  for (const auto& slot : layout_of(two_layers)) {
    deep.parameters.push_back({slot.name, Tensor::zeros(slot.shape)});
    deep.optimizer.first_moment.push_back(Tensor::zeros(slot.shape));
    deep.optimizer.second_moment.push_back(Tensor::zeros(slot.shape));
  }
  const auto deep_file = LLMFS_TRY_AT("exercise 1", training::to_tensor_file(deep));
  const auto deep_bytes =
      LLMFS_TRY_AT("exercise 1", training::encode_tensor_file(deep_file));
  e.exercises.two_layer_data_bytes = deep_bytes.size() - 8 - header_length(deep_bytes);
  const auto encode = [](const training::TrainingState& s) -> Step<std::string> {
    const auto f = LLMFS_TRY_AT("exercise 3", training::to_tensor_file(s));
    return LLMFS_TRY_AT("exercise 3", training::encode_tensor_file(f));
  };
  e.exercises.same_state_same_bytes = LLMFS_TRY(encode(saved)) == file;
  e.exercises.resumed_bytes_equal_straight =
      LLMFS_TRY(encode(resumed_end)) == LLMFS_TRY(encode(straight_end));
  return e;
}

}  // namespace ch35
