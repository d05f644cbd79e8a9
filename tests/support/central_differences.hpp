#pragma once
// Central differences written in the tests themselves, independent of
// the library's gradient checkers (llmfs::autograd::check_gradients and
// check_tape_gradients): the chapters' tests use it to confirm the gradients
// their programs print.

#include <cstddef>

namespace llmfs::testing {

/// For every coordinate i of every tensor `point[which]`, the central difference
///   (loss(point with +step at i) − loss(point with −step at i)) / (2·step),
/// handed to `visit(which, i, numeric)`. `point` is any indexable container of tensors
/// (std::vector or std::array) and `loss` maps such a container to a double.
/// \return the number of coordinates visited.
template <class Point, class Loss, class Visit>
std::size_t central_differences(const Point& point, Loss&& loss, double step,
                                Visit&& visit) {
  std::size_t visited = 0;
  for (std::size_t which = 0; which < point.size(); ++which) {
    for (std::size_t i = 0; i < point[which].size(); ++i) {
      Point up = point;
      Point down = point;
      up[which].mutable_values()[i] += step;
      down[which].mutable_values()[i] -= step;
      visit(which, i, (loss(up) - loss(down)) / (2.0 * step));
      ++visited;
    }
  }
  return visited;
}

}  // namespace llmfs::testing
