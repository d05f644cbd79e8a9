// Chapter 0
#include "evidence.hpp"

namespace ch00 {

// region: exercise-longer-prompt
// Exercise 1: append the predicted token and predict again.
std::expected<ForwardPass, ToyError> exercise_longer_prompt(const ToyModel& model) {
  return forward(model, "abc");
}
// endregion: exercise-longer-prompt

}  // namespace ch00
