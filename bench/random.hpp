#pragma once
// The benchmarks' inputs: values drawn uniformly from [−bound, bound) by the course's
// generator, SplitMix64 (Chapter 6), top 53 bits × 2⁻⁵³, so every run on every standard
// library times the same numbers (the values never matter to the timings, only that
// they are finite and not special).

#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <vector>

#include <llmfs/core/splitmix64.hpp>
#include <llmfs/tensor/tensor.hpp>

namespace llmfs::bench {

/// `count` values uniform in [−bound, bound), from `seed`.
[[nodiscard]] inline std::vector<double> uniform_values(std::size_t count,
                                                        std::uint64_t seed,
                                                        double bound = 1.0) {
  SplitMix64 rng(seed);
  std::vector<double> values(count);
  for (double& v : values)
    v = bound * (2.0 * rng.next_unit() - 1.0);
  return values;
}

/// A tensor of `shape` filled by uniform_values.
[[nodiscard]] inline tensor::Tensor uniform_tensor(const tensor::Shape& shape,
                                                   std::uint64_t seed,
                                                   double bound = 1.0) {
  tensor::Tensor t = tensor::Tensor::zeros(shape);
  const std::vector<double> values = uniform_values(t.values().size(), seed, bound);
  std::copy(values.begin(), values.end(), t.mutable_values().begin());
  return t;
}

}  // namespace llmfs::bench
