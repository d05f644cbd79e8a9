// Chapter 41
#pragma once
/// \file
/// \brief The lanes of an attention kernel (its leading axes, e.g. `[B, h]`) on the
/// library's threads (internal; Chapter 41).

#include <algorithm>
#include <cstddef>
#include <expected>
#include <thread>
#include <vector>

#include <llmfs/autograd/error.hpp>
#include <llmfs/tensor/matmul.hpp>
#include <llmfs/tensor/shape.hpp>

namespace llmfs::attention::detail {

/// The number of lanes of a `[..., T, width]` shape: the product of its leading axes
/// (1 for rank 2).
inline std::size_t lane_count(const tensor::Shape& shape) {
  std::size_t lanes = 1;
  for (std::size_t a = 0; a + 2 < shape.rank(); ++a)
    lanes *= shape[a];
  return lanes;
}

// region: lanes-on-threads
/// Runs `work(lane)` for every lane in `0..lanes−1` on a fixed partition over
/// tensor::matmul_defaults().threads threads, each lane whole on one thread.
/// \return the first error in lane order.
template <class Work>
[[nodiscard]] std::expected<void, autograd::AutogradError> for_each_lane(
    std::size_t lanes, Work work) {
  const std::size_t threads =
      std::max<std::size_t>(1, std::min(tensor::matmul_defaults().threads, lanes));
  std::vector<std::expected<void, autograd::AutogradError>> results(lanes);
  auto slab = [&](std::size_t t) {
    for (std::size_t l = lanes * t / threads; l < lanes * (t + 1) / threads; ++l)
      results[l] = work(l);
  };
  {
    std::vector<std::jthread> workers;
    for (std::size_t t = 1; t < threads; ++t)
      workers.emplace_back(slab, t);
    slab(0);
  }
  for (auto& result : results)
    if (!result) return result;
  return {};
}
// endregion: lanes-on-threads

}  // namespace llmfs::attention::detail
