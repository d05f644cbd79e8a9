// Chapter 30's gradients of L = Σ MHA(X) ⊙ U: against PyTorch float64 and against
// central differences computed here, independently of
// llmfs::autograd::check_tape_gradients.

#include <array>
#include <cmath>

#include "chapters/ch30_support.hpp"
#include "support/central_differences.hpp"
#include "support/reference_data.hpp"

namespace {

using ch30_test::evidence;
using ch30_test::expect_close;
using llmfs::tensor::Tensor;

// The loss for five exact tensors, evaluated by the layer's forward pass alone (no tape
// backward): build the layer from constants, run it, sum output ⊙ upstream in plain
// C++.
double loss_of(const std::array<Tensor, 5>& t) {
  llmfs::autograd::Tape tape;
  auto name = [](const char* role) {
    return std::string("attention.") + role + ".weight";
  };
  auto layer = llmfs::attention::MultiHeadAttention::from_parameters(
      {name("query"), tape.constant(t[1])}, {name("key"), tape.constant(t[2])},
      {name("value"), tape.constant(t[3])}, {name("output"), tape.constant(t[4])},
      ch30::kHeads, ch30::kMaxPositions, ch30::kRopeBase);
  if (!layer) throw std::runtime_error(fmt::format("{}", layer.error()));
  auto forward = layer->forward(tape.constant(t[0]), ch30::kOffset);
  if (!forward) throw std::runtime_error(fmt::format("{}", forward.error()));
  auto output = forward->output.value();
  if (!output) throw std::runtime_error(fmt::format("{}", output.error()));
  const Tensor upstream = ch30::fixture_upstream();
  double loss = 0.0;
  for (std::size_t i = 0; i < output->size(); ++i)
    loss += output->values()[i] * upstream.values()[i];
  return loss;
}

std::array<Tensor, 5> fixture_tensors() {
  return {ch30::fixture_input(), ch30::identity(), ch30::identity(), ch30::identity(),
          ch30::block_swap()};
}

const Tensor& analytic(std::size_t which) {
  const auto& p = evidence();
  return which == 0 ? p.input_gradient : p.parameter_gradients[which - 1];
}

TEST(Ch30Gradients, MatchPyTorchFloat64) {
  const auto torch = llmfs::testing::load_reference_case("ch30_fixture");
  const char* names[] = {"grad_X", "grad_W_Q", "grad_W_K", "grad_W_V", "grad_W_O"};
  for (std::size_t i = 0; i < 5; ++i) {
    EXPECT_EQ(analytic(i).shape().as_vector(), torch.at(names[i]).shape) << names[i];
    expect_close(analytic(i).values(), torch.at(names[i]).values, 1e-12, names[i]);
  }
}

TEST(Ch30Gradients, AgreeWithCentralDifferencesOnAll76Coordinates) {
  constexpr double delta = 1e-6;
  constexpr double tolerance = 8e-6;
  double worst = 0.0;
  const std::size_t checked = llmfs::testing::central_differences(
      fixture_tensors(), loss_of, delta,
      [&](std::size_t which, std::size_t i, double numeric) {
        const double error = std::abs(numeric - analytic(which).values()[i]);
        worst = std::max(worst, error);
        EXPECT_LE(error, tolerance) << "tensor " << which << " coordinate " << i;
      });
  EXPECT_EQ(checked, 76u);
  EXPECT_LT(worst, tolerance);
}

TEST(Ch30Gradients, ReportedCheckCoversTwelvePlusFourTimesSixteenCoordinates) {
  const auto& g = evidence().gradcheck;
  ASSERT_EQ(g.inputs.size(), 5u);
  EXPECT_EQ(g.inputs[0].coordinates, 12u);
  for (std::size_t i = 1; i < 5; ++i)
    EXPECT_EQ(g.inputs[i].coordinates, 16u);
  EXPECT_EQ(g.coordinates(), 76u);
  EXPECT_TRUE(g.passed());
  EXPECT_LE(g.max_abs_error(), ch30::kGradientTolerance);
}

TEST(Ch30Gradients, LossIsTheUpstreamWeightedSumOfTheOutput) {
  EXPECT_NEAR(evidence().loss, loss_of(fixture_tensors()), 1e-15);
  EXPECT_EQ(llmfs::report::format_number(evidence().loss), "2.591709");
}

TEST(Ch30Gradients, HeadZeroQueryColumnsVanishBecauseItsKeysAreEqual) {
  // Every rotated key of head 0 is [1,0], so a query move shifts a whole score row and
  // the softmax ignores it: columns 0 and 1 of dL/dW_Q are zero up to rounding; the key
  // gradient of the same columns is not.
  const Tensor& query = analytic(1);
  const Tensor& key = analytic(2);
  double key_size = 0.0;
  for (std::size_t row = 0; row < 4; ++row) {
    for (std::size_t column = 0; column < 2; ++column) {
      EXPECT_LT(std::abs(query.values()[row * 4 + column]), 1e-15)
          << row << "," << column;
      key_size = std::max(key_size, std::abs(key.values()[row * 4 + column]));
    }
  }
  EXPECT_GT(key_size, 0.01);
}

}  // namespace
