// Chapter 0
#include "evidence.hpp"

namespace ch00 {

// region: exercise-longer-prompt
// Exercise 1: append the predicted token and predict again.
Evidence exercise_longer_prompt(const ToyModel& model) {
  return gather(model, "abc");
}
// endregion: exercise-longer-prompt

}  // namespace ch00
