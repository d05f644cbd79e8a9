// Chapter 21
#pragma once
// Chapter 21's program: every value its report and trace print, gathered once from
// training/batches (the fixture, the modulo bias, the King James training partition)
// and the functions that render them.

#include <array>
#include <cstdint>
#include <string>
#include <vector>

#include <llmfs/autograd/gradcheck.hpp>
#include <llmfs/autograd/tape_gradcheck.hpp>
#include <llmfs/training/batches.hpp>

#include "../common/chapter.hpp"
#include "fixture.hpp"

namespace ch21 {

using llmfs::autograd::GradientCheckReport;
using llmfs::text::Example;
using llmfs::text::TokenId;
using llmfs::training::Batch;
using snippets::Step;

/// One batch of an epoch and its mean cross-entropy.
struct BatchLoss {
  std::vector<std::size_t> examples;  ///< the rows' example indices
  double loss = 0.0;                  ///< mean over the batch's B'·T positions
};

/// One epoch of the fixture.
struct Epoch {
  std::vector<std::size_t> order;  ///< epoch_order(6, 21, epoch)
  std::vector<BatchLoss> batches;  ///< in order; the last is partial
  double mean_of_batches = 0.0;    ///< the plain mean of the batch losses
  double position_mean = 0.0;      ///< position_weighted_mean()
};

/// The fixture: examples, their losses, two epochs and a gradient check.
struct Fixture {
  std::vector<Example> examples;     ///< make_examples(kSequences, kWindows)
  std::vector<Batch> example_rows;   ///< each example alone, as a [1, T] batch
  std::vector<double> example_loss;  ///< its mean cross-entropy
  std::vector<Epoch> epochs;         ///< epochs 0 and 1
  GradientCheckReport check{};       ///< the partial batch's ∂L/∂table
};

/// x mod n against Lemire's bounded draw.
struct Bias {
  std::array<int, 3> byte_residues{};             ///< bytes with x mod 3 = 0, 1, 2
  int draws = 100000;                             ///< draws per method below
  double modulo_below = 0.0, lemire_below = 0.0;  ///< share below 2⁶², n = 3·2⁶²
};

/// The King James training partition, batched.
struct Corpus {
  std::size_t sequences = 0, examples = 0;               ///< documents, N
  std::size_t batches_keep = 0, batches_drop = 0;        ///< ⌈N/B⌉, ⌊N/B⌋
  std::size_t last_rows = 0;                             ///< N mod B
  std::vector<TokenId> first_inputs{}, first_targets{};  ///< row 0 of batch 0, 8 ids
  std::string first_tokens;                              ///< their bytes, |-separated
  std::vector<std::size_t> epoch0_head;   ///< the first 6 of epoch 0's order
  bool same_seed_same_order = false;      ///< recomputed order identical
  std::size_t other_seed_agreements = 0;  ///< positions where seed 22's order agrees
};

/// The exercise answers, computed.
struct Exercises {
  std::array<std::vector<std::size_t>, 2> dropped;  ///< 1: who sits out, epochs 0, 1
  std::size_t batches_b64 = 0, last_rows_b64 = 0;   ///< 2: the corpus with B = 64
  std::uint64_t threshold = 0;  ///< 3: 2⁶⁴ mod n for n = 3·2⁶²
  double mean_draws = 0.0;      ///< 3: draws per bounded(), measured
};

/// Everything the report and the trace print.
struct Evidence {
  Fixture fixture;
  Bias bias;
  Corpus corpus;
  std::vector<std::array<std::string, 2>> errors;  ///< name and error text
  Exercises exercises;
};

/// The fixture's bigram model on `batch`: logits = table[input], mean cross-entropy
/// over the batch's B'·T positions; the one input is the table [V, V].
[[nodiscard]] llmfs::autograd::LossBuilder batch_loss(const Batch& batch);
/// The fixture: examples, two epochs scored, the partial batch's gradient check.
[[nodiscard]] Step<Fixture> run_fixture();
/// The modulo bias by value.
[[nodiscard]] Bias measure_bias();
/// The King James training partition with T = 64, S = 32, B = 32, seed 21.
[[nodiscard]] Step<Corpus> batch_corpus();
/// Runs the whole chapter once.
[[nodiscard]] Step<Evidence> gather();

/// The report, one `key=value` line per fact.
[[nodiscard]] std::string render_report(const Evidence& evidence);
/// The trace records the diagram is drawn from.
[[nodiscard]] std::string render_trace(const Evidence& evidence);

}  // namespace ch21
