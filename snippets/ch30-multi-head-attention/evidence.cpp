// Chapter 30
// Gathers every value chapter 30 prints: the fixture's intermediates, its invariants,
// its gradients, its shapes and its refused inputs. Nothing here re-implements the
// layer: every number comes from llmfs::attention::MultiHeadAttention or the ops it is
// made of.

#include "evidence.hpp"

#include <bit>
#include <cmath>
#include <cstdint>
#include <limits>
#include <set>

#include <llmfs/autograd/ops.hpp>
#include <llmfs/nn/parameters.hpp>
#include <llmfs/tensor/layout.hpp>
#include <llmfs/tensor/matmul.hpp>

namespace ch30 {

using llmfs::attention::MultiHeadAttention;
using llmfs::autograd::Tape;
using llmfs::autograd::TensorValue;
using llmfs::tensor::Shape;
using llmfs::tensor::Tensor;

namespace {

Tensor make(Shape shape, std::vector<double> values) {
  // Shapes and sizes here are fixed by the fixture, so from() cannot fail.
  return *Tensor::from(std::move(shape), std::move(values));
}

std::string parameter_name(std::string_view role) {
  return fmt::format("{}.{}.weight", kParameterPrefix, role);
}

bool all_finite(const Tensor& t) {
  for (double v : t.values())
    if (!std::isfinite(v)) return false;
  return true;
}

// Row `token` of a [1,T,d] tensor.
std::vector<double> row(const Tensor& t, std::size_t token) {
  const std::size_t width = t.shape()[2];
  auto values = t.values().subspan(token * width, width);
  return {values.begin(), values.end()};
}

// Weight (head, query, key) of a [1,h,T,T] table.
double weight(const Tensor& w, std::size_t head, std::size_t query, std::size_t key) {
  const std::size_t tokens = w.shape()[2];
  return w.values()[(head * tokens + query) * tokens + key];
}

}  // namespace

Tensor fixture_input() {
  return make({kBatch, kTokens, kModelWidth},
              {1.0, 0.0, 1.0, 0.0,                       //
               std::cos(1.0), -std::sin(1.0), 0.0, 1.0,  //
               std::cos(2.0), -std::sin(2.0), 1.0, 1.0});
}

Tensor identity(std::size_t width) {
  std::vector<double> values(width * width, 0.0);
  for (std::size_t i = 0; i < width; ++i)
    values[i * width + i] = 1.0;
  return make({width, width}, std::move(values));
}

Tensor fixture_output_weight() {
  return make({kModelWidth, kModelWidth}, {kOutputWeight.begin(), kOutputWeight.end()});
}

bool same_bits(const Tensor& a, const Tensor& b) {
  return llmfs::tensor::bitwise_equal(a, b);
}

std::expected<Tensor, Failure> value_of(const TensorValue& node,
                                        std::string_view what) {
  return need(node.value(), fmt::format("read {}", what));
}

std::expected<FixtureRun, Failure> run_fixture(const Tensor& input, std::size_t offset,
                                               const Tensor& query_weight) {
  Tape tape;
  TensorValue x = tape.parameter(input);
  std::vector<TensorValue> weights = {
      tape.parameter(query_weight), tape.parameter(identity(kModelWidth)),
      tape.parameter(identity(kModelWidth)), tape.parameter(fixture_output_weight())};
  auto layer = need(
      MultiHeadAttention::from_parameters(
          {parameter_name("query"), weights[0]}, {parameter_name("key"), weights[1]},
          {parameter_name("value"), weights[2]}, {parameter_name("output"), weights[3]},
          kHeads, kMaxPositions, kRopeBase),
      "build the fixture layer");
  if (!layer) return std::unexpected(layer.error());
  auto forward = need(layer->forward(x, offset), "run the fixture layer");
  if (!forward) return std::unexpected(forward.error());
  return FixtureRun{tape, x, weights, std::move(*layer), std::move(*forward)};
}

namespace {

// Reads the tensors the report and the trace print from one forward record.
std::expected<void, Failure> read_intermediates(const FixtureRun& run,
                                                PrimaryEvidence& out) {
  const auto& f = run.forward;
  const std::pair<const TensorValue*, Tensor*> reads[] = {
      {&run.input, &out.input},
      {&f.projected_query_heads, &out.projected_query_heads},
      {&f.projected_key_heads, &out.projected_key_heads},
      {&f.projected_value_heads, &out.projected_value_heads},
      {&f.rotated_query_heads, &out.rotated_query_heads},
      {&f.rotated_key_heads, &out.rotated_key_heads},
      {&f.masked_scores, &out.masked_scores},
      {&f.attention_weights, &out.attention_weights},
      {&f.head_outputs, &out.head_outputs},
      {&f.merged, &out.merged},
      {&run.weights[3], &out.output_weight},
      {&f.output, &out.output},
  };
  for (auto [node, target] : reads) {
    auto value = value_of(*node, "a forward intermediate");
    if (!value) return std::unexpected(value.error());
    *target = std::move(*value);
  }
  return {};
}

void check_tables(PrimaryEvidence& out) {
  const Tensor& w = out.attention_weights;
  out.uniform_head_zero = true;
  out.future_probabilities_zero = true;
  out.distinct_head_weights = false;
  for (std::size_t q = 0; q < kTokens; ++q) {
    for (std::size_t k = 0; k < kTokens; ++k) {
      if (k > q) {
        for (std::size_t h = 0; h < kHeads; ++h)
          out.future_probabilities_zero =
              out.future_probabilities_zero && weight(w, h, q, k) == 0.0;
        continue;
      }
      const double uniform = 1.0 / static_cast<double>(q + 1);
      if (std::abs(weight(w, 0, q, k) - uniform) > kInvariantTolerance)
        out.uniform_head_zero = false;
      if (std::abs(weight(w, 1, q, k) - weight(w, 0, q, k)) > kInvariantTolerance)
        out.distinct_head_weights = true;
    }
  }
}

// L = Σ output ⊙ upstream, then one backward pass with seed 1.
std::expected<void, Failure> backpropagate(FixtureRun& run, PrimaryEvidence& out) {
  out.upstream =
      make({kBatch, kTokens, kModelWidth}, {kUpstream.begin(), kUpstream.end()});
  TensorValue upstream = run.tape.constant(out.upstream);
  auto product = need(llmfs::autograd::multiply(run.forward.output, upstream),
                      "weight the output");
  if (!product) return std::unexpected(product.error());
  auto loss = need(llmfs::autograd::sum(*product), "sum the loss");
  if (!loss) return std::unexpected(loss.error());
  auto done =
      need(llmfs::autograd::backward(*loss, Tensor::scalar(1.0)), "backpropagate");
  if (!done) return std::unexpected(done.error());
  auto loss_value = value_of(*loss, "the loss");
  if (!loss_value) return std::unexpected(loss_value.error());
  out.loss = loss_value->values()[0];
  auto gradient = need(run.input.gradient(), "read the input gradient");
  if (!gradient) return std::unexpected(gradient.error());
  out.input_gradient = std::move(*gradient);
  for (std::size_t i = 0; i < 4; ++i) {
    auto g = need(run.weights[i].gradient(), "read a weight gradient");
    if (!g) return std::unexpected(g.error());
    out.parameter_gradients[i] = std::move(*g);
  }
  return {};
}

std::expected<void, Failure> check_prefix(PrimaryEvidence& out) {
  Tensor changed = out.input;
  auto last =
      changed.mutable_values().subspan((kTokens - 1) * kModelWidth, kModelWidth);
  std::copy(kPerturbedLastRow.begin(), kPerturbedLastRow.end(), last.begin());
  auto run = run_fixture(changed, kOffset);
  if (!run) return std::unexpected(run.error());
  auto output = value_of(run->forward.output, "the prefix-perturbed output");
  if (!output) return std::unexpected(output.error());
  out.prefix_perturbed_output = std::move(*output);
  auto row_bits = [&](std::size_t token) {
    return same_bits(make({kModelWidth}, row(out.prefix_perturbed_output, token)),
                     make({kModelWidth}, row(out.output, token)));
  };
  out.prefix_zero_unchanged = row_bits(0);
  out.prefix_one_unchanged = row_bits(1);
  out.suffix_changed = !row_bits(2);
  return {};
}

// Head outputs of head `head`, [T, d_h], from a [1,h,T,d_h] tensor.
Tensor head_block(const Tensor& heads, std::size_t head) {
  const std::size_t size = kTokens * kHeadWidth;
  auto values = heads.values().subspan(head * size, size);
  return make({kTokens, kHeadWidth}, {values.begin(), values.end()});
}

std::expected<void, Failure> check_isolation(PrimaryEvidence& out) {
  Tensor nudged = out.input;
  nudged.mutable_values()[0] += kIsolationNudge;
  auto run = run_fixture(nudged, kOffset);
  if (!run) return std::unexpected(run.error());
  auto heads = value_of(run->forward.head_outputs, "the nudged head outputs");
  if (!heads) return std::unexpected(heads.error());
  const bool head_one_same =
      same_bits(head_block(*heads, 1), head_block(out.head_outputs, 1));
  const bool head_zero_moved =
      !same_bits(head_block(*heads, 0), head_block(out.head_outputs, 0));
  out.head_isolation_before_output = head_one_same && head_zero_moved;
  return {};
}

std::expected<void, Failure> check_common_offset(PrimaryEvidence& out) {
  auto run = run_fixture(out.input, kSharedOffset);
  if (!run) return std::unexpected(run.error());
  auto shifted = value_of(run->forward.attention_weights, "the shifted weights");
  if (!shifted) return std::unexpected(shifted.error());
  bool preserved = shifted->shape() == out.attention_weights.shape();
  for (std::size_t i = 0; preserved && i < shifted->size(); ++i)
    preserved = std::abs(shifted->values()[i] - out.attention_weights.values()[i]) <=
                kInvariantTolerance;
  out.common_offset_weights_preserved = preserved;
  return {};
}

std::expected<void, Failure> check_split_merge(PrimaryEvidence& out) {
  Tape tape;
  TensorValue x = tape.constant(out.input);
  auto split = need(llmfs::attention::split_heads(x, kHeads), "split the input");
  if (!split) return std::unexpected(split.error());
  auto merged = need(llmfs::attention::merge_heads(*split), "merge it back");
  if (!merged) return std::unexpected(merged.error());
  auto value = value_of(*merged, "the merged input");
  if (!value) return std::unexpected(value.error());
  out.split_merge_bitwise = same_bits(*value, out.input);
  return {};
}

// The layer's head split is a reshape to [B,T,h,d_h] followed by swapping axes 1 and 2:
// redo both with the plain tensor functions on X·W_Q and compare with the layer's query
// heads bit for bit.
std::expected<void, Failure> check_layout(const FixtureRun& run, PrimaryEvidence& out) {
  auto query_weight = value_of(run.weights[0], "the query weight");
  if (!query_weight) return std::unexpected(query_weight.error());
  auto projected = need(llmfs::tensor::matmul(out.input, *query_weight), "project X");
  if (!projected) return std::unexpected(projected.error());
  auto reshaped =
      need(llmfs::tensor::reshape(*projected, {kBatch, kTokens, kHeads, kHeadWidth}),
           "reshape the projection");
  if (!reshaped) return std::unexpected(reshaped.error());
  auto swapped = need(llmfs::tensor::transpose(*reshaped, 1, 2), "swap axes 1 and 2");
  if (!swapped) return std::unexpected(swapped.error());
  out.split_is_reshape_transpose = same_bits(*swapped, out.projected_query_heads);
  return {};
}

}  // namespace

std::expected<PrimaryEvidence, Failure> gather_primary() {
  PrimaryEvidence out;
  auto run = run_fixture(fixture_input(), kOffset);
  if (!run) return std::unexpected(run.error());
  if (auto read = read_intermediates(*run, out); !read)
    return std::unexpected(read.error());
  check_tables(out);
  if (auto layout = check_layout(*run, out); !layout)
    return std::unexpected(layout.error());
  using Check = std::expected<void, Failure> (*)(PrimaryEvidence&);
  if (auto done = backpropagate(*run, out); !done) return std::unexpected(done.error());
  for (Check check : {Check{check_prefix}, Check{check_isolation},
                      Check{check_common_offset}, Check{check_split_merge}})
    if (auto done = check(out); !done) return std::unexpected(done.error());
  out.tape_finite = std::isfinite(out.loss);
  for (const Tensor* t :
       {&out.projected_query_heads, &out.projected_key_heads,
        &out.projected_value_heads, &out.rotated_query_heads, &out.rotated_key_heads,
        &out.attention_weights, &out.head_outputs, &out.merged, &out.output,
        &out.input_gradient})
    out.tape_finite = out.tape_finite && all_finite(*t);
  for (const Tensor& g : out.parameter_gradients)
    out.tape_finite = out.tape_finite && all_finite(g);
  return out;
}

std::expected<ParameterEvidence, Failure> gather_parameters() {
  auto run = run_fixture(fixture_input(), kOffset);
  if (!run) return std::unexpected(run.error());
  ParameterEvidence out;
  std::set<std::size_t> nodes;
  bool all_weights = true;
  for (const auto& parameter : run->layer.parameters()) {
    out.names.push_back(parameter.name);
    out.shapes.push_back(parameter.value.shape());
    nodes.insert(parameter.value.node_id());
    all_weights = all_weights && parameter.name.ends_with(".weight");
  }
  out.count = run->layer.parameter_count();
  out.bias_free = all_weights && !run->layer.output_projection().bias().has_value();
  out.node_distinct = nodes.size() == out.names.size();
  return out;
}

std::expected<ShapeEvidence, Failure> gather_shapes() {
  auto run = run_fixture(fixture_input(), kOffset);
  if (!run) return std::unexpected(run.error());
  const auto& f = run->forward;
  ShapeEvidence out;
  out.input = run->input.shape();
  out.split = f.projected_query_heads.shape();
  out.rotated = f.rotated_query_heads.shape();
  out.weights = f.attention_weights.shape();
  out.head_output = f.head_outputs.shape();
  out.merged = f.merged.shape();
  out.output_weight = run->weights[3].shape();
  out.output = f.output.shape();

  // An empty batch: three tokens in each of zero sequences, forward and backward.
  auto empty = run_fixture(Tensor::zeros({0, kTokens, kModelWidth}), kOffset);
  if (!empty) return std::unexpected(empty.error());
  out.empty_batch_weights = empty->forward.attention_weights.shape();
  out.empty_batch_output = empty->forward.output.shape();
  out.empty_batch_backward =
      llmfs::autograd::backward(empty->forward.output,
                                Tensor::zeros({0, kTokens, kModelWidth}))
          .has_value();

  // A single token: the first row of the fixture alone.
  auto single =
      run_fixture(make({1, 1, kModelWidth}, row(fixture_input(), 0)), kOffset);
  if (!single) return std::unexpected(single.error());
  out.single_token_weights = single->forward.attention_weights.shape();
  return out;
}

std::expected<Evidence, Failure> gather_evidence() {
  Evidence evidence;
  auto primary = gather_primary();
  if (!primary) return std::unexpected(primary.error());
  evidence.primary = std::move(*primary);
  auto parameters = gather_parameters();
  if (!parameters) return std::unexpected(parameters.error());
  evidence.parameters = std::move(*parameters);
  auto gradients = gather_gradients();
  if (!gradients) return std::unexpected(gradients.error());
  evidence.gradients = *gradients;
  auto shapes = gather_shapes();
  if (!shapes) return std::unexpected(shapes.error());
  evidence.shapes = std::move(*shapes);
  evidence.errors = gather_errors();
  auto history = historical_contrast(evidence.primary);
  if (!history) return std::unexpected(history.error());
  evidence.history = std::move(*history);
  auto exercises = answer_exercises(evidence.primary, evidence.history);
  if (!exercises) return std::unexpected(exercises.error());
  evidence.exercises = std::move(*exercises);

  // Bitwise replay: the whole fixture computation again, on a new tape.
  auto replay = gather_primary();
  if (!replay) return std::unexpected(replay.error());
  const PrimaryEvidence& a = evidence.primary;
  const PrimaryEvidence& b = *replay;
  bool same =
      std::bit_cast<std::uint64_t>(a.loss) == std::bit_cast<std::uint64_t>(b.loss);
  const std::pair<const Tensor*, const Tensor*> pairs[] = {
      {&a.projected_query_heads, &b.projected_query_heads},
      {&a.rotated_query_heads, &b.rotated_query_heads},
      {&a.rotated_key_heads, &b.rotated_key_heads},
      {&a.attention_weights, &b.attention_weights},
      {&a.head_outputs, &b.head_outputs},
      {&a.merged, &b.merged},
      {&a.output, &b.output},
      {&a.prefix_perturbed_output, &b.prefix_perturbed_output},
      {&a.input_gradient, &b.input_gradient},
  };
  for (auto [x, y] : pairs)
    same = same && same_bits(*x, *y);
  for (std::size_t i = 0; i < 4; ++i)
    same = same && same_bits(a.parameter_gradients[i], b.parameter_gradients[i]);
  evidence.replay_bitwise = same;
  return evidence;
}

}  // namespace ch30
