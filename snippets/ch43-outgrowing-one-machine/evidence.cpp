// Chapter 43
// Reads the checkpoint PyTorch wrote, writes it again, and generates from it.
#include "evidence.hpp"

#include <algorithm>
#include <bit>
#include <cmath>

#include <fmt/format.h>
#include <fmt/ranges.h>

#include <llmfs/core/read_file.hpp>
#include <llmfs/models/decoder.hpp>
#include <llmfs/text/partition.hpp>
#include <llmfs/training/checkpoint.hpp>

#include "../ch35-checkpoints/evidence.hpp"

namespace ch43 {

namespace models = llmfs::models;
namespace training = llmfs::training;
using llmfs::text::TokenId;

namespace {

constexpr std::string_view kPrompt = "In the beginning";
constexpr std::size_t kGreedyTokens = 2;

// region: config-from-metadata
// The decoder's sizes from the file's `config.model.*` entries (Chapter 35's names).
[[nodiscard]] Step<models::DecoderConfig> config_of(const training::TensorFile& file) {
  auto entry = [&](std::string_view key) -> Step<double> {
    const auto it = file.metadata.find(fmt::format("config.model.{}", key));
    if (it == file.metadata.end())
      return llmfs::reject(snippets::StepCode::failed, "config", std::string(key));
    return training::parse_exact_decimal(it->second).value_or(NAN);
  };
  auto size = [&](std::string_view key) -> Step<std::size_t> {
    return static_cast<std::size_t>(LLMFS_TRY(entry(key)));
  };
  return models::DecoderConfig{LLMFS_TRY(size("vocab_size")),
                               LLMFS_TRY(size("model_width")),
                               LLMFS_TRY(size("heads")),
                               LLMFS_TRY(size("layers")),
                               LLMFS_TRY(size("hidden_width")),
                               LLMFS_TRY(size("context_length")),
                               LLMFS_TRY(entry("rope_base")),
                               LLMFS_TRY(entry("epsilon")),
                               0};
}
// endregion: config-from-metadata

// region: greedy
// Appends the argmax of the last position's logits, `count` times (lowest id on ties).
[[nodiscard]] Step<void> greedy(const models::DecoderModel& model, Evidence& e,
                                std::size_t count) {
  const std::size_t vocab = model.config().vocab_size;
  for (std::size_t i = 0; i < count; ++i) {
    const llmfs::autograd::TokenGrid grid{1, e.generated.size(), e.generated};
    const auto logits = LLMFS_TRY_AT("forward", model.forward(grid));
    const auto value = LLMFS_TRY_AT("logits", logits.value());
    const auto z = value.values();
    const auto last = z.end() - static_cast<std::ptrdiff_t>(vocab);
    const auto best = std::max_element(last, z.end());
    e.generated.push_back(static_cast<TokenId>(best - last));
    e.best_logits.push_back(*best);
  }
  return {};
}
// endregion: greedy

// The records `NAME|...values=a,b,...` of PyTorch's data file, as numbers.
std::vector<std::vector<double>> records(const std::string& text, std::string_view name,
                                         std::string_view field) {
  std::vector<std::vector<double>> rows;
  for (std::size_t at = text.find(name); at != std::string::npos;
       at = text.find(name, at + 1)) {
    std::string_view rest(text.data() + text.find(field, at) + field.size());
    rest = rest.substr(0, rest.find('\n'));
    rows.emplace_back();
    while (!rest.empty()) {
      const std::size_t comma = std::min(rest.find(','), rest.size());
      rows.back().push_back(std::stod(std::string(rest.substr(0, comma))));
      rest.remove_prefix(std::min(comma + 1, rest.size()));
    }
  }
  return rows;
}

// Compares this program's prompt logits and greedy ids with PyTorch's.
[[nodiscard]] Step<void> compare_with_torch(const models::DecoderModel& model,
                                            Evidence& e) {
  const auto text = LLMFS_TRY_AT(
      "reference", llmfs::read_file(LLMFS_DDP_REFERENCE_DIR "/ch43_logits.txt"));
  const llmfs::autograd::TokenGrid grid{1, e.prompt.size(), e.prompt};
  const auto logits = LLMFS_TRY_AT("prompt forward", model.forward(grid));
  const auto value = LLMFS_TRY_AT("prompt logits", logits.value());
  const auto z = value.values();
  std::size_t i = 0;
  for (const auto& row : records(text, "LOGITS|", "values="))
    for (double torch : row) {
      e.torch_max_difference =
          std::max(e.torch_max_difference, std::abs(z[i++] - torch));
      ++e.torch_values;
    }
  const auto run = records(text, "RUN|", "processes=");
  e.ddp_losses = records(text, "RUN|", "losses=").at(0);
  e.processes = static_cast<std::size_t>(run.at(0).at(0));
  e.torch_train_tokens =
      static_cast<std::size_t>(records(text, "DATA|", "tokens=").at(0).at(0));
  const auto ids = records(text, "GREEDY|", "ids=");
  e.torch_greedy_equal =
      i == z.size() && ids.size() == 1 &&
      std::ranges::equal(ids[0], e.generated, [](double a, TokenId b) {
        return a == static_cast<double>(b);
      });
  return {};
}

// region: exercise-answers
// Exercise 1: windows per process and the gradient bytes a ring all-reduce sends per
// process; exercise 2: bytes per process of θ, g, m, v (8 bytes each per parameter)
// when nothing is sharded (DDP) and under ZeRO's three stages (Rajbhandari et al.
// 2020).
void exercises(Evidence& e, std::size_t batch) {
  const std::size_t p = e.processes, psi = e.parameters;
  e.windows_per_process = batch / p;
  e.allreduce_bytes = 2 * (p - 1) * 8 * psi / p;
  e.zero_bytes = {32 * psi, 16 * psi + 16 * psi / p, 8 * psi + 24 * psi / p,
                  32 * psi / p};
}
// endregion: exercise-answers

// region: training-partition
// The book's training partition (Chapter 2's manifest), its documents joined in corpus
// order and encoded with the checkpoint's own tokenizer: what PyTorch drew windows
// from.
[[nodiscard]] Step<std::vector<TokenId>> training_tokens(
    const llmfs::text::Tokenizer& tokenizer) {
  const auto text = LLMFS_TRY_AT(
      "corpus",
      llmfs::text::read_partitioned_corpus(LLMFS_CORPUS_PATH, LLMFS_PARTITIONS_PATH));
  std::string train;
  for (std::size_t d : llmfs::text::indices(text.partitions, llmfs::text::Split::train))
    train += text.corpus.documents[d].text;
  return tokenizer.encode(train);
}
// endregion: training-partition

// region: cpp-continuation
// Chapter 35's C++ run, resumed from the same file and trained the same steps on one
// process over the same training partition: its θ, m and v against PyTorch's.
[[nodiscard]] Step<void> continue_in_cpp(const training::TrainingState& torch_state,
                                         const llmfs::text::Tokenizer& tokenizer,
                                         Evidence& e) {
  const auto start =
      LLMFS_TRY_AT("start", training::load_checkpoint(LLMFS_DDP_REFERENCE_DIR
                                                      "/ch35_checkpoint.safetensors",
                                                      ch35::layout_of(ch35::kConfig)));
  auto session = LLMFS_TRY(ch35::resume(start));
  session.tokens = LLMFS_TRY(training_tokens(tokenizer));
  e.train_tokens = session.tokens.size();
  while (session.step < torch_state.step)
    e.cpp_losses.push_back(LLMFS_TRY(ch35::train_step(session)));
  const auto cpp = LLMFS_TRY(ch35::capture(session));
  auto worst = [&](const auto& a, const auto& b) {
    for (std::size_t i = 0; i < a.size(); ++i)
      for (std::size_t k = 0; k < a[i].size(); ++k)
        e.cpp_max_difference = std::max(e.cpp_max_difference,
                                        std::abs(a[i].values()[k] - b[i].values()[k]));
  };
  std::vector<llmfs::tensor::Tensor> ours, theirs;
  for (std::size_t i = 0; i < cpp.parameters.size(); ++i) {
    ours.push_back(cpp.parameters[i].value);
    theirs.push_back(torch_state.parameters[i].value);
  }
  worst(ours, theirs);
  worst(cpp.optimizer.first_moment, torch_state.optimizer.first_moment);
  worst(cpp.optimizer.second_moment, torch_state.optimizer.second_moment);
  e.cpp_counters_equal = cpp.step == torch_state.step &&
                         cpp.optimizer.step == torch_state.optimizer.step &&
                         cpp.rng == torch_state.rng;
  return {};
}
// endregion: cpp-continuation

}  // namespace

// region: gather
Step<Evidence> gather() {
  Evidence e;
  const auto start =
      LLMFS_TRY_AT("start", training::load_tensor_file(LLMFS_DDP_REFERENCE_DIR
                                                       "/ch35_checkpoint.safetensors"));
  e.start_step = std::stoull(start.metadata.at("step"));
  const auto bytes = LLMFS_TRY_AT(
      "read", llmfs::read_file(LLMFS_DDP_REFERENCE_DIR "/ch43_continued.safetensors"));
  const auto file = LLMFS_TRY_AT("decode", training::decode_tensor_file(bytes));
  const auto config = LLMFS_TRY(config_of(file));
  std::vector<training::ParameterSlot> layout;
  for (const auto& spec : models::decoder_parameter_specs(config))
    layout.push_back({spec.name, spec.shape});
  const auto state = LLMFS_TRY_AT("bind", training::from_tensor_file(file, layout));
  // PyTorch → C++ → bytes: the C++ writer must give back the file it read
  const auto file_again = LLMFS_TRY_AT("to file", training::to_tensor_file(state));
  const auto again = LLMFS_TRY_AT("encode", training::encode_tensor_file(file_again));
  e.file_bytes = bytes.size();
  for (std::size_t i = 0; i < std::min(bytes.size(), again.size()); ++i)
    e.bytes_equal += bytes[i] == again[i] ? 1 : 0;
  // endregion: gather
  // region: generate
  std::vector<llmfs::tensor::Tensor> values;
  for (const auto& parameter : state.parameters)
    values.push_back(parameter.value);
  const auto model =
      LLMFS_TRY_AT("model", models::DecoderModel::from_values(config, values));
  const auto tokenizer =
      LLMFS_TRY_AT("tokenizer", llmfs::text::Tokenizer::create(state.tokenizer));
  e.step = state.step;
  e.adamw_t = state.optimizer.step;
  e.parameters = model.parameter_count();
  e.prompt = tokenizer.encode(kPrompt);
  e.generated = e.prompt;
  LLMFS_TRY(greedy(model, e, kGreedyTokens));
  LLMFS_TRY(compare_with_torch(model, e));
  LLMFS_TRY(continue_in_cpp(state, tokenizer, e));
  exercises(e, std::stoull(file.metadata.at("config.batch.size")));
  const auto generated =
      LLMFS_TRY_AT("decode bytes", tokenizer.decode_bytes(e.generated));
  for (unsigned char c : generated)
    e.text += (c >= 32 && c < 127) ? std::string(1, static_cast<char>(c))
                                   : fmt::format("\\x{:02x}", c);
  return e;
}
// endregion: generate

std::string render_report(const Evidence& e) {
  std::string out;
  out += fmt::format("start=file:ch35_checkpoint.safetensors step:{}\n", e.start_step);
  out += fmt::format("pytorch_ddp=processes:{} losses:[{:.6f}]\n", e.processes,
                     fmt::join(e.ddp_losses, ","));
  out += fmt::format(
      "cpp_same_steps=train_partition_tokens:{} losses:[{:.6f}] "
      "max_abs_difference_theta_m_v:{:.1e} counters_equal:{}\n",
      e.train_tokens, fmt::join(e.cpp_losses, ","), e.cpp_max_difference,
      e.cpp_counters_equal);
  out += fmt::format("checkpoint=file:ch43_continued.safetensors step:{} adamw_t:{}\n",
                     e.step, e.adamw_t);
  out += fmt::format("resaved_by_cpp=bytes_equal:{}/{}\n", e.bytes_equal, e.file_bytes);
  out += fmt::format("model=parameters:{}\n", e.parameters);
  out += fmt::format("prompt=ids:[{}]\n", fmt::join(e.prompt, ","));
  out +=
      fmt::format("greedy=ids:[{}] text:\"{}\"\n", fmt::join(e.generated, ","), e.text);
  out += fmt::format("torch_logits=values:{} max_abs_difference:{:.1e}\n",
                     e.torch_values, e.torch_max_difference);
  out += fmt::format("torch_greedy_ids_equal={}\n", e.torch_greedy_equal);
  out +=
      fmt::format("exercise_1=windows_per_process:{} allreduce_bytes_per_process:{}\n",
                  e.windows_per_process, e.allreduce_bytes);
  out +=
      fmt::format("exercise_2=bytes_per_process ddp:{} zero1:{} zero2:{} zero3:{}\n",
                  e.zero_bytes[0], e.zero_bytes[1], e.zero_bytes[2], e.zero_bytes[3]);
  return out;
}

std::string render_trace(const Evidence& e) {
  std::string out = fmt::format("HOP|stage=cpp|step={}\n", e.start_step);
  out += fmt::format("HOP|stage=pytorch_ddp|processes={}|step={}|losses={:.6f}\n",
                     e.processes, e.step, fmt::join(e.ddp_losses, ","));
  out += fmt::format("HOP|stage=cpp_same_steps|losses={:.6f}|max_difference={:.1e}\n",
                     fmt::join(e.cpp_losses, ","), e.cpp_max_difference);
  out += fmt::format("HOP|stage=cpp_again|bytes={}|bytes_equal={}\n", e.file_bytes,
                     e.bytes_equal);
  for (std::size_t i = 0; i < e.best_logits.size(); ++i)
    out += fmt::format("GREEDY|step={}|id={}|logit={:.6f}\n", i,
                       e.generated[e.prompt.size() + i], e.best_logits[i]);
  return out;
}

// region: round-trip
Step<RoundTrip> round_trip(const std::filesystem::path& original,
                           const std::filesystem::path& copy) {
  const auto a = LLMFS_TRY_AT("original", training::load_tensor_file(original));
  const auto b = LLMFS_TRY_AT("copy", training::load_tensor_file(copy));
  RoundTrip r{.tensors = a.tensors.size(), .metadata_equal = a.metadata == b.metadata};
  for (std::size_t i = 0; i < std::min(a.tensors.size(), b.tensors.size()); ++i) {
    const auto& x = a.tensors[i];
    const auto& y = b.tensors[i];
    r.values += x.values.size();
    if (x.name != y.name || x.shape != y.shape || x.values.size() != y.values.size())
      continue;
    for (std::size_t k = 0; k < x.values.size(); ++k)
      r.values_equal += std::bit_cast<std::uint64_t>(x.values[k]) ==
                        std::bit_cast<std::uint64_t>(y.values[k]);
  }
  r.tensors_equal = a.tensors.size() == b.tensors.size();
  const auto x = LLMFS_TRY_AT("original bytes", llmfs::read_file(original));
  const auto y = LLMFS_TRY_AT("copy bytes", llmfs::read_file(copy));
  r.bytes = x.size();
  for (std::size_t i = 0; i < std::min(x.size(), y.size()); ++i)
    r.bytes_equal += x[i] == y[i] ? 1 : 0;
  r.bytes_equal = x.size() == y.size() ? r.bytes_equal : 0;
  return r;
}
// endregion: round-trip

std::string render_round_trip(const RoundTrip& r) {
  return fmt::format(
      "round_trip=tensors:{} tensor_count_equal:{} values_bit_equal:{}/{} "
      "metadata_equal:{} bytes_equal:{}/{}\n",
      r.tensors, r.tensors_equal, r.values_equal, r.values, r.metadata_equal,
      r.bytes_equal, r.bytes);
}

}  // namespace ch43
