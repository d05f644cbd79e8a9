// Chapter 21
#include <algorithm>
#include <utility>

#include <fmt/format.h>

#include <llmfs/core/try.hpp>
#include <llmfs/training/batches.hpp>

namespace llmfs::training {

std::string_view describe(BatchErrorCode code) noexcept {
  switch (code) {
    case BatchErrorCode::zero_batch_size: return "batch size is zero";
    case BatchErrorCode::order_size: return "order does not match the examples";
    case BatchErrorCode::order_entry: return "order entry is not an example";
    case BatchErrorCode::batch_index: return "batch index past the epoch";
    case BatchErrorCode::window_outside: return "window outside its sequence";
    case BatchErrorCode::window_config: return "invalid window configuration";
  }
  return "unknown batch error";
}

// region: bounded-draw-impl
std::uint64_t bounded(SplitMix64& rng, std::uint64_t n) noexcept {
  __extension__ using Wide = unsigned __int128;
  if (n == 0) return 0;
  Wide product = Wide{rng.next_u64()} * n;
  auto low = static_cast<std::uint64_t>(product);
  if (low < n) {
    const std::uint64_t threshold = (0 - n) % n;  // 2⁶⁴ mod n
    while (low < threshold) {
      product = Wide{rng.next_u64()} * n;
      low = static_cast<std::uint64_t>(product);
    }
  }
  return static_cast<std::uint64_t>(product >> 64);
}
// endregion: bounded-draw-impl

// region: shuffle-impl
void shuffle(std::span<std::size_t> items, SplitMix64& rng) noexcept {
  for (std::size_t i = items.size(); i > 1; --i) {
    const auto j = static_cast<std::size_t>(bounded(rng, i));  // j in [0, i)
    std::swap(items[i - 1], items[j]);
  }
}

std::vector<std::size_t> epoch_order(std::size_t count, std::uint64_t seed,
                                     std::size_t epoch) {
  SplitMix64 seeds(seed);
  std::uint64_t epoch_seed = seeds.next_u64();
  for (std::size_t e = 0; e < epoch; ++e)
    epoch_seed = seeds.next_u64();
  std::vector<std::size_t> order(count);
  for (std::size_t i = 0; i < count; ++i)
    order[i] = i;
  SplitMix64 rng(epoch_seed);
  shuffle(order, rng);
  return order;
}
// endregion: shuffle-impl

std::expected<std::size_t, BatchError> batch_count(std::size_t examples,
                                                   BatchConfig config) {
  if (config.batch_size == 0)
    return reject(BatchErrorCode::zero_batch_size, "batch plan", "B=0");
  const std::size_t full = examples / config.batch_size;
  const bool partial = examples % config.batch_size != 0;
  return full + (partial && config.last == LastBatch::keep ? 1 : 0);
}

namespace {

// region: batch-checks
// Before anything is built: the window configuration, B, the order's size, the batch
// index, and that each chosen example's T + 1 tokens lie inside its sequence.
[[nodiscard]] std::expected<void, BatchError> check_batch(
    const std::vector<std::vector<text::TokenId>>& sequences,
    std::span<const text::Example> examples, std::span<const std::size_t> order,
    std::size_t index, BatchConfig config, text::WindowConfig windows) {
  LLMFS_TRY_AT("batch plan", text::check_window_config(windows));
  const std::size_t batches = LLMFS_TRY(batch_count(examples.size(), config));
  if (order.size() != examples.size())
    return reject(
        BatchErrorCode::order_size, "batch plan",
        fmt::format("{} entries for {} examples", order.size(), examples.size()));
  if (index >= batches)
    return reject(BatchErrorCode::batch_index, "batch",
                  fmt::format("batch {} of {} (N={}, B={})", index, batches,
                              examples.size(), config.batch_size));
  const std::size_t first = index * config.batch_size;
  const std::size_t end = std::min(first + config.batch_size, order.size());
  for (std::size_t row = first; row < end; ++row) {
    if (order[row] >= examples.size())
      return reject(BatchErrorCode::order_entry, "batch",
                    fmt::format("order[{}] = {} of {} examples", row, order[row],
                                examples.size()));
    const text::Example& x = examples[order[row]];
    if (x.sequence >= sequences.size() ||
        x.start + windows.context >= sequences[x.sequence].size())
      return reject(BatchErrorCode::window_outside, "batch",
                    fmt::format("example {} (sequence {}, start {}, T={})", order[row],
                                x.sequence, x.start, windows.context));
  }
  return {};
}
// endregion: batch-checks

}  // namespace

// region: make-batch
// Row b is the window of example order[index·B + b]: its T context tokens are the
// inputs, the T tokens one step later the targets.
std::expected<Batch, BatchError> make_batch(
    const std::vector<std::vector<text::TokenId>>& sequences,
    std::span<const text::Example> examples, std::span<const std::size_t> order,
    std::size_t index, BatchConfig config, text::WindowConfig windows) {
  LLMFS_TRY(check_batch(sequences, examples, order, index, config, windows));
  const std::size_t first = index * config.batch_size;
  const std::size_t rows = std::min(config.batch_size, order.size() - first);
  const std::size_t T = windows.context;
  Batch batch{{rows, T, {}}, {rows, T, {}}, {}};
  for (std::size_t b = 0; b < rows; ++b) {
    const text::Example& x = examples[order[first + b]];
    const auto window = std::span(sequences[x.sequence]).subspan(x.start, T + 1);
    batch.inputs.ids.insert(batch.inputs.ids.end(), window.begin(), window.end() - 1);
    batch.targets.ids.insert(batch.targets.ids.end(), window.begin() + 1, window.end());
    batch.examples.push_back(order[first + b]);
  }
  return batch;
}
// endregion: make-batch

// region: weighted-mean
double position_weighted_mean(std::span<const double> batch_losses,
                              std::span<const std::size_t> positions) {
  double total = 0.0;
  std::size_t count = 0;
  for (std::size_t k = 0; k < std::min(batch_losses.size(), positions.size()); ++k) {
    total += batch_losses[k] * static_cast<double>(positions[k]);
    count += positions[k];
  }
  return count == 0 ? 0.0 : total / static_cast<double>(count);
}
// endregion: weighted-mean

}  // namespace llmfs::training
