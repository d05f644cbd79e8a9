// Chapter 9
#pragma once
// Chapter 9's program: every value its report and trace print, gathered once from the
// library's reshape and transpose (src/llmfs/tensor/layout.hpp), and the functions that
// render them.

#include <array>
#include <cstddef>
#include <string>
#include <vector>

#include <llmfs/tensor/layout.hpp>
#include <llmfs/tensor/strided.hpp>
#include <llmfs/tensor/tensor.hpp>

#include "../common/chapter.hpp"
#include "fixture.hpp"

namespace ch09 {

using llmfs::tensor::Shape;
using llmfs::tensor::StridedView;
using llmfs::tensor::Tensor;
using snippets::Step;

/// One reshape of the fixture.
struct Reshaped {
  Shape shape;                       ///< the new shape
  std::vector<std::size_t> strides;  ///< its row-major strides
  bool same_values = false;          ///< the values are bitwise those of the input
  bool moved = false;  ///< an rvalue reshape kept the very same storage (same address)
};

/// One transpose of the fixture: the view it describes and the tensor it makes.
struct Transposed {
  std::array<std::size_t, 2> axes{};  ///< the swapped axes
  StridedView view;                   ///< shape and strides over the input's storage
  bool row_major = false;             ///< whether the view is already contiguous
  std::vector<double> values;         ///< the materialised tensor's values, in order
};

/// The answers of the chapter's exercises, computed.
struct Exercises {
  std::size_t offset = 0;           ///< 1: storage offset of kExerciseIndex
  std::array<bool, 3> row_major{};  ///< 2: transposes (0,1), (1,2), (0,2) of [2,3,1]
  std::vector<double> values_0_2;   ///< 2: the (0,2) transpose of [2,3,1] holding 0..5
  bool round_trip = false;          ///< 3: transpose(0,2) twice is the input
};

/// Everything the report and the trace print.
struct Evidence {
  std::vector<Reshaped> reshapes;      ///< one per kReshapes
  std::vector<Transposed> transposes;  ///< one per kTransposes
  double view_value = 0.0;             ///< the (0,2) transpose at kViewIndex
  std::size_t view_offset = 0;         ///< the storage offset it was read from
  Transposed unit;                     ///< transpose (0,1) of kUnitDims
  bool unit_same_order = false;        ///< its values are the input's, in order
  std::vector<double> flat_steps;      ///< differences of the flattened (0,2) transpose
  std::vector<std::string> errors;     ///< name=error text of each refusal
  std::size_t misconception_agree = 0;  ///< positions where reshape = transpose
  Exercises exercises;                  ///< the exercise answers
};

/// The fixture tensor: shape kDims, values 0, 1, …, 23.
[[nodiscard]] Step<Tensor> make_fixture();
/// Each reshape of `tensor` in kReshapes, by copy and (for the address) by move.
[[nodiscard]] Step<std::vector<Reshaped>> reshape_all(const Tensor& tensor);
/// Transposes `tensor` at `axes`: the view, whether it is row-major, the copy.
[[nodiscard]] Step<Transposed> transpose_one(const Tensor& tensor,
                                             std::array<std::size_t, 2> axes);
/// The refused reshapes and transposes, as `name=error text`.
[[nodiscard]] std::vector<std::string> refusals(const Tensor& tensor);
/// The exercise answers.
[[nodiscard]] Step<Exercises> solve_exercises(const Tensor& tensor);
/// Runs the whole chapter once.
[[nodiscard]] Step<Evidence> gather();

/// The report, one `key=value` line per fact.
[[nodiscard]] std::string render_report(const Evidence& evidence);
/// The trace records the diagram is drawn from.
[[nodiscard]] std::string render_trace(const Evidence& evidence);

}  // namespace ch09
