// Chapter 21
#include "evidence.hpp"

#include <numeric>

#include <llmfs/autograd/model_ops.hpp>
#include <llmfs/autograd/tape_gradcheck.hpp>
#include <llmfs/text/tokenizer.hpp>

namespace ch21 {

namespace {

using llmfs::SplitMix64;
using llmfs::autograd::AutogradError;
using llmfs::autograd::Tape;
using llmfs::autograd::TensorValue;
using llmfs::tensor::Shape;
using llmfs::tensor::Tensor;
using namespace llmfs::training;

}  // namespace

// region: batch-loss
// The bigram model of the fixture: logits = table[input] for every position, scored
// against the targets; cross_entropy takes the mean over this batch's B'·T positions.
llmfs::autograd::LossBuilder batch_loss(const Batch& batch) {
  return [batch](Tape&, std::span<const TensorValue> in)
             -> std::expected<TensorValue, AutogradError> {
    const TensorValue logits = LLMFS_TRY(embedding(in[0], batch.inputs));
    return cross_entropy(logits, batch.targets);
  };
}
// endregion: batch-loss

namespace {

[[nodiscard]] Step<double> score(const Batch& batch) {
  const Tensor table = bigram_table();
  const Tensor loss = LLMFS_TRY_AT(
      "loss", llmfs::autograd::evaluate_loss(batch_loss(batch), std::span(&table, 1)));
  return loss.values()[0];
}

}  // namespace

// region: run-epoch
// One epoch: its order, then every batch (the last one partial) and its mean loss; the
// epoch's loss both as the plain mean of the batch means and weighted by positions.
Step<Epoch> run_epoch(const std::vector<Example>& examples, std::size_t epoch) {
  Epoch e{epoch_order(examples.size(), kSeed, epoch), {}, 0.0, 0.0};
  const std::size_t count =
      LLMFS_TRY_AT("plan", batch_count(examples.size(), kBatches));
  std::vector<double> losses;
  std::vector<std::size_t> positions;
  for (std::size_t k = 0; k < count; ++k) {
    const Batch batch = LLMFS_TRY_AT(
        "batch", make_batch(kSequences, examples, e.order, k, kBatches, kWindows));
    const double loss = LLMFS_TRY(score(batch));
    e.batches.push_back({batch.examples, loss});
    losses.push_back(loss);
    positions.push_back(batch.inputs.ids.size());
    e.mean_of_batches += loss / static_cast<double>(count);
  }
  e.position_mean = position_weighted_mean(losses, positions);
  return e;
}
// endregion: run-epoch

Step<Fixture> run_fixture() {
  Fixture f;
  f.examples =
      LLMFS_TRY_AT("examples", llmfs::text::make_examples(kSequences, kWindows));
  std::vector<std::size_t> identity(f.examples.size());
  std::iota(identity.begin(), identity.end(), std::size_t{0});
  for (std::size_t i = 0; i < identity.size(); ++i) {
    const Batch one = LLMFS_TRY_AT(
        "example", make_batch(kSequences, f.examples, identity, i, {1}, kWindows));
    f.example_loss.push_back(LLMFS_TRY(score(one)));
    f.example_rows.push_back(one);
  }
  for (std::size_t epoch = 0; epoch < 2; ++epoch)
    f.epochs.push_back(LLMFS_TRY(run_epoch(f.examples, epoch)));
  const Batch partial = LLMFS_TRY_AT(
      "partial",
      make_batch(kSequences, f.examples, f.epochs[0].order, 1, kBatches, kWindows));
  const Tensor table = bigram_table();
  f.check = LLMFS_TRY_AT("check", llmfs::autograd::check_tape_gradients(
                                      batch_loss(partial), std::span(&table, 1)));
  return f;
}

// region: modulo-bias
// x mod 3 over all 256 bytes, and n = 3·2⁶² where x mod n lands below 2⁶² for half
// of all x (those values have two preimages, x and x + n): the fair share is a third.
Bias measure_bias() {
  Bias b;
  for (int x = 0; x < 256; ++x)
    ++b.byte_residues[static_cast<std::size_t>(x % 3)];
  const std::uint64_t n = 3ULL << 62;
  SplitMix64 modulo(kSeed), lemire(kSeed);
  for (int i = 0; i < b.draws; ++i) {
    b.modulo_below += modulo.next_u64() % n < (1ULL << 62) ? 1.0 / b.draws : 0.0;
    b.lemire_below += bounded(lemire, n) < (1ULL << 62) ? 1.0 / b.draws : 0.0;
  }
  return b;
}
// endregion: modulo-bias

// region: batch-corpus
// Part I's training partition, encoded with the course tokenizer and cut into Chapter
// 5's windows (T = 64, S = 32), batched by B = 32 in the order of seed 21.
Step<Corpus> batch_corpus() {
  const auto merges =
      LLMFS_TRY_AT("merges", llmfs::text::read_merges(LLMFS_TOKENIZER_PATH));
  const auto tokenizer =
      LLMFS_TRY_AT("tokenizer", llmfs::text::Tokenizer::create(merges));
  const llmfs::text::WindowConfig windows{64, 32};
  const BatchConfig config{32};
  const auto sequences = LLMFS_TRY_AT(
      "train", llmfs::text::read_split_sequences(
                   LLMFS_CORPUS_PATH, LLMFS_PARTITIONS_PATH, llmfs::text::Split::train,
                   [&](std::string_view t) { return tokenizer.encode(t); },
                   {tokenizer.bos(), tokenizer.eos(), tokenizer.vocab_size()}));
  const auto examples = LLMFS_TRY_AT("windows", make_examples(sequences, windows));
  Corpus c;
  c.sequences = sequences.size();
  c.examples = examples.size();
  c.batches_keep = LLMFS_TRY_AT("keep", batch_count(examples.size(), config));
  c.batches_drop =
      LLMFS_TRY_AT("drop", batch_count(examples.size(), {32, LastBatch::drop}));
  c.last_rows = examples.size() % config.batch_size;
  const auto order = epoch_order(examples.size(), kSeed, 0);
  const Batch first = LLMFS_TRY_AT(
      "batch 0", make_batch(sequences, examples, order, 0, config, windows));
  c.first_inputs.assign(first.inputs.ids.begin(), first.inputs.ids.begin() + 8);
  c.first_targets.assign(first.targets.ids.begin(), first.targets.ids.begin() + 8);
  for (const TokenId id : c.first_inputs)
    c.first_tokens += "|" + std::string(tokenizer.token_bytes(id));
  const auto again = epoch_order(examples.size(), kSeed, 0);
  const auto other = epoch_order(examples.size(), kSeed + 1, 0);
  c.epoch0_head.assign(order.begin(), order.begin() + 6);
  c.same_seed_same_order = again == order;
  for (std::size_t i = 0; i < order.size(); ++i)
    c.other_seed_agreements += order[i] == other[i];
  return c;
}
// endregion: batch-corpus

// region: refusals
// Requests make_batch refuses, each checked before a batch is built.
std::vector<std::array<std::string, 2>> refusals(const std::vector<Example>& examples) {
  const std::vector<std::size_t> order = {0, 1, 2, 3, 4, 5};
  const std::vector<std::size_t> stray = {0, 1, 2, 3, 4, 9};
  const auto batch = [&](std::span<const std::size_t> o, std::size_t index,
                         BatchConfig c, llmfs::text::WindowConfig w) {
    return snippets::error_text(make_batch(kSequences, examples, o, index, c, w));
  };
  return {{"zero_batch_size", batch(order, 0, {0}, kWindows)},
          {"order_size", batch(std::span(order).first(5), 0, kBatches, kWindows)},
          {"order_entry", batch(stray, 1, kBatches, kWindows)},
          {"batch_index", batch(order, 1, {4, LastBatch::drop}, kWindows)},
          {"window_outside", batch(order, 0, kBatches, {4, 1})},
          {"window_config", batch(order, 0, kBatches, {2, 4})}};
}
// endregion: refusals

// region: exercises
Step<Exercises> solve_exercises(const Fixture& f, const Corpus& c) {
  Exercises x;
  for (std::size_t epoch = 0; epoch < 2; ++epoch)  // drop: rows past ⌊N/B⌋·B sit out
    x.dropped[epoch].assign(f.epochs[epoch].order.begin() + 4,
                            f.epochs[epoch].order.end());
  x.batches_b64 = LLMFS_TRY_AT("b64", batch_count(c.examples, {64}));
  x.last_rows_b64 = c.examples % 64;
  const std::uint64_t n = 3ULL << 62;
  x.threshold = (0 - n) % n;
  SplitMix64 rng(kSeed);
  const int calls = 100000;
  for (int i = 0; i < calls; ++i)
    static_cast<void>(bounded(rng, n));
  SplitMix64 counter(kSeed);  // replay the raw draws until the state matches
  std::size_t draws = 0;
  for (; counter != rng; ++draws)
    static_cast<void>(counter.next_u64());
  x.mean_draws = static_cast<double>(draws) / calls;
  return x;
}
// endregion: exercises

Step<Evidence> gather() {
  Evidence e;
  e.fixture = LLMFS_TRY(run_fixture());
  e.bias = measure_bias();
  e.corpus = LLMFS_TRY(batch_corpus());
  e.errors = refusals(e.fixture.examples);
  e.exercises = LLMFS_TRY(solve_exercises(e.fixture, e.corpus));
  return e;
}

}  // namespace ch21
