// Chapter 23
#include "evidence.hpp"

#include <cmath>
#include <map>

#include <llmfs/autograd/tape_gradcheck.hpp>
#include <llmfs/eval/metrics.hpp>
#include <llmfs/training/batches.hpp>

#include "../common/reference_records.hpp"

namespace ch23 {

namespace {

using llmfs::models::NgramBatch;
using llmfs::models::NgramConfig;
using llmfs::models::NgramMlp;
using llmfs::tensor::Shape;
using llmfs::tensor::Tensor;

std::vector<Tensor> fixture_values(const std::vector<double>& output_weight) {
  const std::vector<Shape> shapes = {Shape{4, 1}, Shape{2, 1}, Shape{1}, Shape{1, 4},
                                     Shape{4}};
  std::vector<Tensor> values;
  for (std::size_t k = 0; k < shapes.size(); ++k)
    values.push_back(
        Tensor::from(shapes[k], k == 3 ? output_weight : kValues[k]).value());
  return values;
}

std::string ids(std::span<const llmfs::text::TokenId> tokens) {
  std::string out;
  for (std::size_t i = 0; i < tokens.size(); ++i)
    out += fmt::format("{}{}", i ? "," : "", tokens[i]);
  return out;
}

}  // namespace

Step<NgramMlp> fixture_model(const std::vector<double>& output_weight) {
  return LLMFS_TRY_AT(
      "fixture model",
      NgramMlp::from_values(kFixtureConfig, fixture_values(output_weight)));
}

// region: fixture-check
// The fixture's loss and gradients from one pass, then every gradient of the model with
// W₂ ≠ 0 against Chapter 13's central differences, each probe on a fresh tape.
Step<FixtureRun> run_fixture() {
  const NgramBatch examples =
      llmfs::models::ngram_examples(kDocuments, kFixtureConfig.context, kBos, kEos);
  FixtureRun out;
  for (std::size_t r = 0; r < examples.targets.batch; ++r)
    out.examples.push_back(
        fmt::format("[{}]->{}", ids(std::span(examples.contexts.ids).subspan(r * 2, 2)),
                    examples.targets.ids[r]));
  const NgramMlp model = LLMFS_TRY(fixture_model(kValues[3]));
  const auto pass = LLMFS_TRY_AT("fixture forward", model.forward(examples, true));
  LLMFS_TRY_AT("fixture backward",
               llmfs::autograd::backward(pass.loss, Tensor::scalar(1.0)));
  out.loss = LLMFS_TRY_AT("fixture loss", pass.loss.value()).values()[0];
  for (const auto& p : pass.parameters) {
    const Tensor g = LLMFS_TRY_AT("fixture gradient", p.value.gradient());
    out.gradients.emplace_back(g.values().begin(), g.values().end());
  }
  const llmfs::autograd::LossBuilder loss =
      [&](llmfs::autograd::Tape&, std::span<const llmfs::autograd::TensorValue> in)
      -> std::expected<llmfs::autograd::TensorValue, llmfs::autograd::AutogradError> {
    std::vector<llmfs::nn::NamedParameter> named;
    for (std::size_t k = 0; k < in.size(); ++k)
      named.push_back({std::string(NgramMlp::names()[k]), in[k]});
    auto graph = llmfs::models::record_ngram(kFixtureConfig, named, examples);
    if (!graph)
      return std::unexpected(llmfs::autograd::AutogradError{
          llmfs::autograd::AutogradErrorCode::invalid_argument, "ngram",
          fmt::format("{}", graph.error()), std::nullopt});
    return graph->second;
  };
  const auto report =
      LLMFS_TRY_AT("fixture check", llmfs::autograd::check_tape_gradients(
                                        loss, fixture_values(kCheckedOutputWeight)));
  out.checked = report.coordinates();
  out.check_max_error = report.max_abs_error();
  out.check_passed = report.passed();
  return out;
}
// endregion: fixture-check

// region: corpus-examples
// Chapter 6's encoded partitions cut into n-gram examples: every token after BOS with
// its three predecessors. The demo scores the first kSubsetDocuments validation
// documents; their bytes are the UTF-8 size of their text, decoded back (BPE is
// lossless), so their bits per byte are Chapter 7's.
Step<CorpusExamples> corpus_examples() {
  auto corpora = LLMFS_TRY(ch06::encode_corpus());
  const ch06::EncodedCorpus& bpe = corpora.at(1);
  const auto& c = bpe.config;
  CorpusExamples out;
  out.vocab = c.vocab_size;
  out.train =
      llmfs::models::ngram_examples(bpe.train.documents, kContext, c.bos, c.eos);
  out.validation =
      llmfs::models::ngram_examples(bpe.validation.documents, kContext, c.bos, c.eos);
  out.validation_bytes = bpe.validation.bytes;
  const std::span<const llmfs::models::TokenSequence> subset(
      bpe.validation.documents.data(), kSubsetDocuments);
  for (const auto& document : subset)
    out.subset_bytes += bpe.decode(document).size();
  out.subset_documents = subset.size();
  out.subset = llmfs::models::ngram_examples(subset, kContext, c.bos, c.eos);
  const auto counted =
      LLMFS_TRY_AT("bigram", llmfs::models::BigramModel::fit(bpe.train.documents, c));
  const auto bigram = LLMFS_TRY_AT("bigram", counted.with_alpha(0.01));
  const auto full = LLMFS_TRY_AT(
      "bigram score", llmfs::eval::score_bigram(bigram, bpe.validation.documents,
                                                out.validation_bytes));
  const auto part = LLMFS_TRY_AT(
      "bigram score", llmfs::eval::score_bigram(bigram, subset, out.subset_bytes));
  out.bigram_validation_bpb = LLMFS_TRY_AT("bpb", llmfs::eval::bits_per_byte(full));
  out.bigram_subset_bpb = LLMFS_TRY_AT("bpb", llmfs::eval::bits_per_byte(part));
  out.bigram_subset_loss = part.total_nats / static_cast<double>(part.tokens);
  return out;
}
// endregion: corpus-examples

// region: training-loop
// The corpus model drawn from kSeed, AdamW over Chapter 22's groups, and the library's
// loop: Chapter 21's seeded epochs, Chapter 7's score at fixed steps.
Step<std::vector<CurvePoint>> train(
    const CorpusExamples& corpus, const NgramBatch& scored, std::size_t bytes,
    std::size_t batch, std::size_t steps, std::size_t every, bool linear_decay,
    const std::function<void(const CurvePoint&)>& on_point,
    const std::function<void(std::size_t, double)>& on_step,
    std::optional<NgramMlp>* trained) {
  llmfs::SplitMix64 rng(kSeed);
  NgramMlp model = LLMFS_TRY_AT(
      "create", NgramMlp::create({corpus.vocab, kContext, kEmbedding, kHidden}, rng));
  auto optimizer = LLMFS_TRY_AT(
      "optimizer", llmfs::training::AdamW::create(
                       kHyper, LLMFS_TRY_AT("groups", llmfs::models::ngram_groups(
                                                          model, kWeightDecay))));
  auto curve = LLMFS_TRY_AT(
      "train", llmfs::models::train_ngram(model, optimizer, corpus.train, scored, bytes,
                                          {batch, steps, every, kSeed, linear_decay},
                                          on_point, on_step));
  if (trained != nullptr) trained->emplace(std::move(model));
  return curve;
}
// endregion: training-loop

Step<Replay> replay_reference() {
  const auto records = snippets::read_reference_records(LLMFS_NGRAM_REFERENCE_PATH);
  const auto numbers = snippets::reference_numbers;
  const auto tokens = [&](const std::string& text) {
    std::vector<llmfs::text::TokenId> out;
    for (double v : numbers(text))
      out.push_back(static_cast<llmfs::text::TokenId>(v));
    return out;
  };
  NgramConfig config;
  NgramBatch batch;
  std::vector<Tensor> values;
  std::map<std::string, std::vector<double>> gradient;
  std::map<std::pair<std::size_t, std::string>, std::vector<double>> after;
  llmfs::training::AdamWHyper hyper;
  double weight_decay = 0.0, loss = 0.0;
  std::size_t steps = 0;
  for (const auto& [kind, r] : records) {
    if (kind == "CONFIG") {
      config = {std::stoul(r.at("V")), std::stoul(r.at("n")), std::stoul(r.at("d")),
                std::stoul(r.at("h"))};
    } else if (kind == "VALUE") {
      const auto shape = numbers(r.at("shape"));
      std::vector<std::size_t> dims(shape.begin(), shape.end());
      values.push_back(LLMFS_TRY_AT(
          "reference value", Tensor::from(Shape(dims), numbers(r.at("values")))));
    } else if (kind == "BATCH") {
      const auto x = tokens(r.at("contexts")), y = tokens(r.at("targets"));
      batch = {{y.size(), config.context, x}, {y.size(), 1, y}};
    } else if (kind == "LOSS") {
      loss = std::stod(r.at("value"));
    } else if (kind == "GRAD") {
      gradient[r.at("name")] = numbers(r.at("values"));
    } else if (kind == "HYPER") {
      hyper = {std::stod(r.at("lr")), std::stod(r.at("beta1")),
               std::stod(r.at("beta2")), std::stod(r.at("eps"))};
      weight_decay = std::stod(r.at("weight_decay"));
    } else if (kind == "STEP") {
      steps = std::max<std::size_t>(steps, std::stoul(r.at("t")));
      after[{std::stoul(r.at("t")), r.at("name")}] = numbers(r.at("values"));
    }
  }
  NgramMlp model =
      LLMFS_TRY_AT("reference model", NgramMlp::from_values(config, values));
  // The largest element difference relative to the largest reference magnitude.
  const auto relative = [](std::span<const double> ours,
                           const std::vector<double>& ref) {
    double diff = 0.0, scale = 0.0;
    for (std::size_t i = 0; i < ref.size(); ++i) {
      diff = std::max(diff, std::abs(ours[i] - ref[i]));
      scale = std::max(scale, std::abs(ref[i]));
    }
    return scale > 0 ? diff / scale : diff;
  };
  Replay out{model.parameter_count(), batch.targets.batch, steps, 0, 0, 0};
  const auto pass = LLMFS_TRY_AT("reference forward", model.forward(batch, true));
  LLMFS_TRY_AT("reference backward",
               llmfs::autograd::backward(pass.loss, Tensor::scalar(1.0)));
  out.loss_relative =
      std::abs(LLMFS_TRY_AT("loss", pass.loss.value()).values()[0] - loss) / loss;
  for (const auto& p : pass.parameters)
    out.gradient_relative =
        std::max(out.gradient_relative,
                 relative(LLMFS_TRY_AT("gradient", p.value.gradient()).values(),
                          gradient.at(p.name)));
  auto optimizer = LLMFS_TRY_AT(
      "reference optimizer",
      llmfs::training::AdamW::create(
          hyper,
          LLMFS_TRY_AT("groups", llmfs::models::ngram_groups(model, weight_decay))));
  for (std::size_t t = 1; t <= steps; ++t) {
    LLMFS_TRY_AT("reference step", llmfs::models::train_step(model, optimizer, batch));
    for (std::size_t k = 0; k < model.values().size(); ++k)
      out.adamw_relative =
          std::max(out.adamw_relative,
                   relative(model.values()[k].values(),
                            after.at({t, std::string(NgramMlp::names()[k])})));
  }
  return out;
}

}  // namespace ch23
