// Unit tests of training/clipping (Chapter 33): below the bound nothing changes, above
// it the norm becomes c(‖g‖/(‖g‖ + 1e-6)) with the direction kept, on hand and random
// gradients.
#include <cmath>
#include <vector>

#include <gtest/gtest.h>

#include <llmfs/core/splitmix64.hpp>
#include <llmfs/nn/gradient_norm.hpp>
#include <llmfs/training/clipping.hpp>

namespace {

using namespace llmfs::training;
using llmfs::tensor::Shape;
using llmfs::tensor::Tensor;

Tensor clip_vec(std::vector<double> v) {
  const std::size_t n = v.size();
  return Tensor::from(Shape{n}, std::move(v)).value();
}

TEST(Clipping, ThreeFourFiveIsCutToTheBound) {
  std::vector<Tensor> g{clip_vec({3.0}), clip_vec({0.0, 4.0})};  // ‖g‖ = 5
  const ClipReport r = clip_by_global_norm(g, 1.0);
  EXPECT_EQ(r.norm, 5.0);
  EXPECT_EQ(r.scale, 1.0 / (5.0 + 1e-6));
  EXPECT_EQ(g[0].values()[0], 3.0 * r.scale);
  EXPECT_EQ(g[1].values()[1], 4.0 * r.scale);
  EXPECT_NEAR(llmfs::nn::global_norm(g), 1.0, 1e-6);
}

TEST(Clipping, BelowTheBoundNothingChanges) {
  std::vector<Tensor> g{clip_vec({0.3, -0.4})};  // ‖g‖ = 0.5
  const ClipReport r = clip_by_global_norm(g, 1.0);
  EXPECT_EQ(r.scale, 1.0);
  EXPECT_EQ(g[0].values()[0], 0.3);
  EXPECT_EQ(g[0].values()[1], -0.4);
}

TEST(Clipping, RandomGradientsKeepTheirDirectionAndEndAtMostC) {
  llmfs::SplitMix64 rng(3324);
  for (int trial = 0; trial < 100; ++trial) {
    std::vector<Tensor> g;
    for (int k = 0; k < 3; ++k) {
      std::vector<double> v(1 + rng.next_u64() % 7);
      for (double& x : v)
        x = (rng.next_unit() * 2 - 1) * double(1 + trial);
      g.push_back(clip_vec(v));
    }
    const std::vector<Tensor> before = g;
    const double c = 0.5 + rng.next_unit() * 4;
    const ClipReport r = clip_by_global_norm(g, c);
    EXPECT_LE(llmfs::nn::global_norm(g), c * (1 + 1e-12));
    EXPECT_EQ(r.norm, llmfs::nn::global_norm(before));
    for (std::size_t k = 0; k < g.size(); ++k)
      for (std::size_t i = 0; i < g[k].size(); ++i)
        EXPECT_EQ(g[k].values()[i], before[k].values()[i] * r.scale);
  }
}

}  // namespace
