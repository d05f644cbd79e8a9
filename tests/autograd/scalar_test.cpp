// The Chapter-14 scalar tape: derivatives derived by hand beside each assertion, the
// typed errors, and seeded random expression trees against Chapter 13's central
// differences.

#include <cmath>
#include <cstdint>
#include <memory>
#include <random>
#include <vector>

#include <fmt/format.h>
#include <gtest/gtest.h>

#include <llmfs/autograd/gradcheck.hpp>
#include <llmfs/autograd/scalar.hpp>
#include <llmfs/tensor/tensor.hpp>

namespace {

using llmfs::autograd::ScalarError;
using llmfs::autograd::ScalarErrorCode;
using llmfs::autograd::ScalarTape;
using llmfs::autograd::Var;

// ----------------------------------------------------------------- local derivatives

TEST(ScalarTape, EachOperationRecordsItsValueAndLocalDerivatives) {
  ScalarTape t;
  const Var a = t.input(3.0), b = t.input(-2.0);
  // a + b = 1, (1, 1); a − b = 5, (1, −1); a·b = −6, (b, a) = (−2, 3);
  // a / b = −1.5, (1/b, −a/b²) = (−0.5, −0.75).
  const Var sum = t.add(a, b).value(), gap = t.sub(a, b).value();
  const Var product = t.mul(a, b).value(), ratio = t.div(a, b).value();
  const auto n = t.nodes();
  EXPECT_EQ(n[sum.node].value, 1.0);
  EXPECT_EQ(n[sum.node].local, (std::array<double, 2>{1.0, 1.0}));
  EXPECT_EQ(n[gap.node].value, 5.0);
  EXPECT_EQ(n[gap.node].local, (std::array<double, 2>{1.0, -1.0}));
  EXPECT_EQ(n[product.node].value, -6.0);
  EXPECT_EQ(n[product.node].local, (std::array<double, 2>{-2.0, 3.0}));
  EXPECT_EQ(n[ratio.node].value, -1.5);
  EXPECT_EQ(n[ratio.node].local, (std::array<double, 2>{-0.5, -0.75}));
  EXPECT_EQ(n[ratio.node].parents, (std::array<std::size_t, 2>{0, 1}));
  EXPECT_EQ(n[ratio.node].op, "div");
  // exp(0) = 1, local 1; log(e) = 1, local 1/e; tanh(0) = 0, local 1 − 0² = 1.
  const Var zero = t.input(0.0), e = t.input(std::exp(1.0));
  EXPECT_EQ(n.size(), 6u);
  const Var ex = t.exp(zero).value(), lg = t.log(e).value(), th = t.tanh(zero).value();
  EXPECT_EQ(t.nodes()[ex.node].local[0], 1.0);
  EXPECT_NEAR(t.nodes()[lg.node].value, 1.0, 1e-15);
  EXPECT_NEAR(t.nodes()[lg.node].local[0], std::exp(-1.0), 1e-16);
  EXPECT_EQ(t.nodes()[th.node].local[0], 1.0);
  EXPECT_EQ(t.nodes()[th.node].arity, 1u);
}

// ----------------------------------------------------------------- backward

TEST(ScalarTape, AValueUsedTwiceAccumulates) {
  // d(x·x)/dx = 2x = 6 at 3: both parents of the product are x, each adds x·1.
  ScalarTape t;
  const Var x = t.input(3.0);
  const Var y = t.mul(x, x).value();
  const auto adjoint = t.backward(y).value();
  EXPECT_EQ(adjoint[x.node], 6.0);
  // a·b + a at (2, −3): ∂/∂a = b + 1 = −2 (two uses), ∂/∂b = a = 2.
  ScalarTape u;
  const Var a = u.input(2.0), b = u.input(-3.0);
  const Var f = u.add(u.mul(a, b).value(), a).value();
  const auto g = u.backward(f).value();
  EXPECT_EQ(g[a.node], -2.0);
  EXPECT_EQ(g[b.node], 2.0);
  EXPECT_EQ(g[f.node], 1.0);
}

TEST(ScalarTape, BackwardFromAnInnerNodeIgnoresLaterNodes) {
  // t = a·b, then u = t + a; backward from t: ∂t/∂a = b = 5, ∂t/∂b = a = 4, and u,
  // recorded later, gets adjoint 0.
  ScalarTape t;
  const Var a = t.input(4.0), b = t.input(5.0);
  const Var inner = t.mul(a, b).value();
  const Var later = t.add(inner, a).value();
  const auto g = t.backward(inner).value();
  EXPECT_EQ(g[a.node], 5.0);
  EXPECT_EQ(g[b.node], 4.0);
  EXPECT_EQ(g[later.node], 0.0);
  ASSERT_EQ(g.size(), 4u);
}

TEST(ScalarTape, ChainRuleThroughUnaryOperations) {
  // f = tanh(log(x)·exp(x)) at x = 1: inner = 0·e = 0, f = 0, f' = (1 − 0)·(1/x·e^x +
  // log x·e^x) = e.
  ScalarTape t;
  const Var x = t.input(1.0);
  const Var inner = t.mul(t.log(x).value(), t.exp(x).value()).value();
  const Var f = t.tanh(inner).value();
  EXPECT_EQ(t.value(f).value(), 0.0);
  EXPECT_NEAR(t.backward(f).value()[x.node], std::exp(1.0), 1e-15);
}

// ----------------------------------------------------------------- typed errors

TEST(ScalarTape, RefusesLogOfANonPositiveValueAndDivisionByZero) {
  ScalarTape t;
  const Var minus = t.input(-1.0), zero = t.input(0.0);
  const Var nan = t.input(std::nan(""));
  for (const Var bad : {minus, zero, nan}) {
    auto r = t.log(bad);
    ASSERT_FALSE(r.has_value());
    EXPECT_EQ(r.error().code, ScalarErrorCode::log_of_non_positive);
  }
  EXPECT_EQ(fmt::format("{}", t.log(minus).error()),
            "log: log of a non-positive value (node 0 has value -1)");
  auto d = t.div(minus, zero);
  ASSERT_FALSE(d.has_value());
  EXPECT_EQ(fmt::format("{}", d.error()), "div: division by zero (node 1 is 0)");
  EXPECT_EQ(t.nodes().size(), 3u);  // nothing was recorded by the refused calls
}

TEST(ScalarTape, RefusesValuesOfAnotherOrADestroyedTape) {
  ScalarTape t;
  const Var mine = t.input(1.0);
  Var stale;
  {
    ScalarTape gone;
    stale = gone.input(1.0);
  }
  ScalarTape other;
  const Var foreign = other.input(1.0);
  for (const Var bad : {stale, foreign}) {
    EXPECT_EQ(t.add(mine, bad).error().code, ScalarErrorCode::foreign_value);
    EXPECT_EQ(t.mul(bad, mine).error().code, ScalarErrorCode::foreign_value);
    EXPECT_EQ(t.exp(bad).error().code, ScalarErrorCode::foreign_value);
    EXPECT_EQ(t.backward(bad).error().code, ScalarErrorCode::foreign_value);
    EXPECT_EQ(t.value(bad).error().code, ScalarErrorCode::foreign_value);
  }
  EXPECT_EQ(fmt::format("{}", t.backward(foreign).error()),
            "backward: value is not on this tape (node 0 of another tape)");
  EXPECT_EQ(t.nodes().size(), 1u);
}

TEST(ScalarTape, AMovedFromTapeHasNoNodesLeft) {
  ScalarTape t;
  const Var x = t.input(2.0);
  ScalarTape moved = std::move(t);
  EXPECT_EQ(moved.value(x).value(), 2.0);
  // NOLINTNEXTLINE(bugprone-use-after-move): the point of the test
  auto r = t.value(x);
  ASSERT_FALSE(r.has_value());
  EXPECT_EQ(fmt::format("{}", r.error()),
            "value: value is not on this tape (node 0 past the 0 nodes of this tape)");
}

// ----------------------------------------------------------------- property test

// A random expression tree over three inputs: a leaf (an input or a constant), a
// unary operation or a binary one.
struct Ch14Tree {
  int op = 0;  // 0 input, 1 constant, 2 add, 3 sub, 4 mul, 5 div, 6 exp, 7 log, 8 tanh
  int input = 0;
  double constant = 0.0;
  std::unique_ptr<Ch14Tree> left, right;
};

std::unique_ptr<Ch14Tree> ch14_random_tree(std::mt19937_64& rng, int depth) {
  auto tree = std::make_unique<Ch14Tree>();
  std::uniform_int_distribution<int> pick(depth == 0 ? 0 : 0, depth == 0 ? 1 : 8);
  tree->op = pick(rng);
  tree->input = std::uniform_int_distribution<int>(0, 2)(rng);
  tree->constant = std::uniform_real_distribution<double>(-2.0, 2.0)(rng);
  if (tree->op >= 2) tree->left = ch14_random_tree(rng, depth - 1);
  if (tree->op >= 2 && tree->op <= 5) tree->right = ch14_random_tree(rng, depth - 1);
  return tree;
}

// Records the tree; sets `tame` false where central differences lose their
// accuracy: a denominator or log argument below 0.25, or any |value| above 1e4.
std::expected<Var, ScalarError> ch14_record(const Ch14Tree& n, ScalarTape& t,
                                            std::span<const Var> in, bool& tame) {
  auto check = [&](std::expected<Var, ScalarError> v) {
    if (v && std::abs(t.value(*v).value()) > 1e4) tame = false;
    return v;
  };
  if (n.op == 0) return in[n.input];
  if (n.op == 1) return t.input(n.constant);
  const Var a = LLMFS_TRY(ch14_record(*n.left, t, in, tame));
  if (n.op >= 6) {
    if (n.op == 7 && t.value(a).value() < 0.25) tame = false;
    if (!tame) return a;
    return check(n.op == 6 ? t.exp(a) : n.op == 7 ? t.log(a) : t.tanh(a));
  }
  const Var b = LLMFS_TRY(ch14_record(*n.right, t, in, tame));
  if (n.op == 5 && std::abs(t.value(b).value()) < 0.25) tame = false;
  if (!tame) return a;
  switch (n.op) {
    case 2: return check(t.add(a, b));
    case 3: return check(t.sub(a, b));
    case 4: return check(t.mul(a, b));
    default: return check(t.div(a, b));
  }
}

TEST(ScalarTape, RandomExpressionTreesAgreeWithCentralDifferences) {
  // 300 seeded trees of depth ≤ 4 over three inputs in [−1.5, 1.5]; each gradient from
  // one backward sweep is checked by Chapter 13's checker with its defaults.
  std::mt19937_64 rng(14);
  std::uniform_real_distribution<double> coordinate(-1.5, 1.5);
  int checked = 0;
  for (int trial = 0; trial < 300; ++trial) {
    const auto tree = ch14_random_tree(rng, 4);
    const std::vector<double> point{coordinate(rng), coordinate(rng), coordinate(rng)};
    ScalarTape t;
    std::vector<Var> in;
    for (const double v : point)
      in.push_back(t.input(v));
    bool tame = true;
    const Var out = ch14_record(*tree, t, in, tame).value();
    if (!tame) continue;  // a near-singular case: the checker could not judge it
    const auto adjoint = t.backward(out).value();
    auto f = [&tree](std::span<const llmfs::tensor::Tensor> x)
        -> std::expected<llmfs::tensor::Tensor, ScalarError> {
      ScalarTape probe;
      std::vector<Var> vars;
      for (const auto& v : x)
        vars.push_back(probe.input(v.values()[0]));
      bool ignored = true;
      const Var y = LLMFS_TRY(ch14_record(*tree, probe, vars, ignored));
      return llmfs::tensor::Tensor::scalar(LLMFS_TRY(probe.value(y)));
    };
    std::vector<llmfs::tensor::Tensor> x, g;
    for (std::size_t i = 0; i < 3; ++i) {
      x.push_back(llmfs::tensor::Tensor::scalar(point[i]));
      g.push_back(llmfs::tensor::Tensor::scalar(adjoint[in[i].node]));
    }
    const auto report = llmfs::autograd::check_gradients(f, x, g);
    ASSERT_TRUE(report.has_value()) << fmt::format("{}", report.error());
    EXPECT_TRUE(report->passed())
        << "trial " << trial << " max error " << report->max_abs_error();
    ++checked;
  }
  EXPECT_GT(checked, 150);  // most trees are tame
}

}  // namespace
