#pragma once
// Test helper (unit and chapter tests): tensors of uniform random values from a fixed
// seed, every multi-index of a shape, and a naive row-major offset.

#include <cstdint>
#include <random>
#include <span>
#include <vector>

#include <llmfs/tensor/tensor.hpp>

namespace llmfs::test {

/// Values uniform in [-1, 1) from a fixed seed (the generator's sequence is fixed by
/// the standard; the distribution may differ between libraries, so no test hard-codes
/// its output).
inline tensor::Tensor random_tensor(const tensor::Shape& shape, std::uint64_t seed) {
  std::mt19937_64 engine(seed);
  std::uniform_real_distribution<double> dist(-1.0, 1.0);
  std::vector<double> values(shape.element_count().value());
  for (double& v : values)
    v = dist(engine);
  return tensor::Tensor::from(shape, std::move(values)).value();
}

/// Every multi-index of an array with axis lengths `dims`, in row-major order (the last
/// axis fastest); none when a length is 0, one empty index for rank 0.
inline std::vector<std::vector<std::size_t>> all_indices(
    std::span<const std::size_t> dims) {
  std::vector<std::vector<std::size_t>> all;
  for (std::size_t d : dims)
    if (d == 0) return all;
  std::vector<std::size_t> index(dims.size(), 0);
  while (true) {
    all.push_back(index);
    std::size_t axis = dims.size();
    while (axis > 0 && ++index[axis - 1] == dims[axis - 1])
      index[--axis] = 0;
    if (axis == 0) return all;
  }
}

/// Naive row-major offset of a multi-index: the hand-written reference for the strided
/// helper.
inline std::size_t naive_offset(const tensor::Shape& shape,
                                const std::vector<std::size_t>& index) {
  std::size_t offset = 0;
  for (std::size_t axis = 0; axis < shape.rank(); ++axis)
    offset = offset * shape[axis] + index[axis];
  return offset;
}

}  // namespace llmfs::test

#include <ostream>

#include <fmt/format.h>

namespace llmfs::tensor {
// GoogleTest printers, so failed expectations show tensors and shapes readably.
inline void PrintTo(const Tensor& t, std::ostream* os) {
  *os << fmt::format("{}", t);
}
inline void PrintTo(const Shape& s, std::ostream* os) {
  *os << fmt::format("{}", s);
}
inline void PrintTo(const TensorError& e, std::ostream* os) {
  *os << fmt::format("{}", e);
}
}  // namespace llmfs::tensor
