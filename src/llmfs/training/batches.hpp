// Chapter 21
#pragma once
/// \file
/// \brief Mini-batches: Chapter 5's windows stacked into `[B,T]` inputs and `[B,T]`
/// targets, in an order shuffled by Fisher–Yates from SplitMix64 with Lemire's unbiased
/// bounded draws, epoch after epoch (Chapter 21).
///
/// Units: B (batch size) counts examples, T (context) counts tokens; an epoch visits
/// every one of the N examples once, in ⌈N/B⌉ batches when the last, partial batch of
/// N mod B examples is kept, ⌊N/B⌋ when it is dropped.

#include <cstddef>
#include <cstdint>
#include <expected>
#include <span>
#include <string_view>
#include <vector>

#include <llmfs/autograd/model_ops.hpp>
#include <llmfs/core/error.hpp>
#include <llmfs/core/splitmix64.hpp>
#include <llmfs/text/windows.hpp>

namespace llmfs::training {

// region: bounded-draw
/// A uniform integer in `[0, n)` from `rng`, without the bias of `next_u64() % n`:
/// Lemire's multiply-shift with rejection ("Fast random integer generation in an
/// interval", ACM TOMACS 29(1), 2019). The high word of the 128-bit product x·n is the
/// draw; a low word below 2⁶⁴ mod n marks one of the 2⁶⁴ mod n values of x that would
/// make some results one count more likely, and it is drawn again. Usually one draw.
/// `n = 0` returns 0 and draws nothing.
[[nodiscard]] std::uint64_t bounded(SplitMix64& rng, std::uint64_t n) noexcept;
// endregion: bounded-draw

// region: shuffle-api
/// Shuffles `items` in place by Fisher–Yates (Durstenfeld's form): for i = n − 1 down
/// to 1, swap item i with item bounded(rng, i + 1). Every one of the n! orders is
/// equally likely when the draws are; draws n − 1 bounded integers.
void shuffle(std::span<std::size_t> items, SplitMix64& rng) noexcept;

/// The order in which epoch `epoch` (0, 1, …) visits `count` examples: the identity
/// 0 … count − 1 shuffled by a SplitMix64 seeded with draw number `epoch` + 1 of
/// SplitMix64(`seed`). Depends on (count, seed, epoch) alone: the same arguments give
/// the same order, bit for bit, on every run, and any epoch can be recomputed without
/// replaying the ones before it (Chapter 35 resumes training this way).
[[nodiscard]] std::vector<std::size_t> epoch_order(std::size_t count,
                                                   std::uint64_t seed,
                                                   std::size_t epoch);
// endregion: shuffle-api

// region: batch-types
/// What the last batch of an epoch does when N is not a multiple of B.
enum class LastBatch {
  keep,  ///< a final batch of N mod B examples: every example is seen every epoch
  drop,  ///< no final partial batch: N mod B examples sit out this epoch
};

/// How the examples are grouped.
struct BatchConfig {
  std::size_t batch_size = 0;        ///< B ≥ 1: examples per batch
  LastBatch last = LastBatch::keep;  ///< what happens to the remainder
};

/// One mini-batch: row b is example `examples[b]`; inputs(b, t) is its context token t
/// and targets(b, t) the token after it, so every position predicts its next token.
struct Batch {
  autograd::TokenGrid inputs;         ///< [B', T]: B' = B, or N mod B for the last
  autograd::TokenGrid targets;        ///< [B', T]: inputs shifted left by one token
  std::vector<std::size_t> examples;  ///< [B']: the example index of each row
};
// endregion: batch-types

// region: batch-errors
/// What is wrong with a batching request.
enum class BatchErrorCode {
  zero_batch_size,  ///< B = 0
  order_size,       ///< the order does not hold one entry per example
  order_entry,      ///< an order entry is not an example index
  batch_index,      ///< the batch asked for is past the epoch's last batch
  window_outside,   ///< an example's window runs past the end of its sequence
  window_config,    ///< the window configuration is invalid (see the cause)
};

/// The fixed description of a code, e.g. `"batch index past the epoch"`.
[[nodiscard]] std::string_view describe(BatchErrorCode code) noexcept;

/// A batching error: code, stage (`"batch plan"`, `"batch"`), the numbers in the
/// detail, and for BatchErrorCode::window_config the WindowError of Chapter 5.
using BatchError =
    StageError<BatchErrorCode, BatchErrorCode::window_config, text::WindowError>;
// endregion: batch-errors

/// The number of batches in an epoch of `examples` examples: ⌈N/B⌉ (keep) or ⌊N/B⌋
/// (drop). \return BatchErrorCode::zero_batch_size.
[[nodiscard]] std::expected<std::size_t, BatchError> batch_count(std::size_t examples,
                                                                 BatchConfig config);

/// Batch number `index` of the epoch whose order is `order`: the examples
/// order[index·B], …, stacked as `[B', T]` inputs and targets from `sequences`.
/// Everything is checked before the batch is built.
/// \return BatchErrorCode::window_config (wrapping Chapter 5's WindowError),
///         zero_batch_size, order_size, order_entry, batch_index, or window_outside
///         naming the example, its sequence and start.
[[nodiscard]] std::expected<Batch, BatchError> make_batch(
    const std::vector<std::vector<text::TokenId>>& sequences,
    std::span<const text::Example> examples, std::span<const std::size_t> order,
    std::size_t index, BatchConfig config, text::WindowConfig windows);

/// The mean loss per position over batches whose losses are each a mean over their own
/// positions: Σ loss_k·n_k / Σ n_k with n_k = B'_k·T. Differs from the plain mean of
/// the batch losses as soon as one batch is smaller (the last, partial one). Returns 0
/// for no positions; the two spans are read up to the shorter length.
[[nodiscard]] double position_weighted_mean(std::span<const double> batch_losses,
                                            std::span<const std::size_t> positions);

}  // namespace llmfs::training
