// Chapter 8
#pragma once
// Chapter 8's program: every value its report and trace print, gathered once from the
// library's Shape and Tensor (src/llmfs/tensor/), and the functions that render them.

#include <cstddef>
#include <span>
#include <string>
#include <vector>

#include <llmfs/tensor/shape.hpp>
#include <llmfs/tensor/tensor.hpp>

#include "../common/chapter.hpp"
#include "fixture.hpp"

namespace ch08 {

using llmfs::tensor::Shape;
using llmfs::tensor::Tensor;
using snippets::Step;

/// One element of the fixture, visited in nested-loop (row-major) order.
struct Cell {
  std::vector<std::size_t> index;  ///< (i0, i1, i2)
  std::size_t offset = 0;          ///< row_major_offset(shape, index)
  std::size_t dot = 0;             ///< Σ index[a] · stride[a], the derivation's form
  double value = 0.0;              ///< Tensor::at(index)
};

/// The shape facts the report prints for one shape.
struct ShapeFacts {
  Shape shape;                       ///< the shape itself
  std::size_t count = 0;             ///< its element count
  std::vector<std::size_t> strides;  ///< its row-major strides
};

/// The answers of the chapter's exercises, computed.
struct Exercises {
  std::vector<std::size_t> strides;  ///< 1: strides of kExerciseDims
  std::size_t offset = 0;            ///< 1: offset of kExerciseIndex in it
  std::vector<std::size_t> index;    ///< 2: the index at kExerciseOffset
  std::size_t cube_side = 0;   ///< 3: the largest n whose [n,n,n] count fits in 64 bits
  std::size_t cube_count = 0;  ///< 3: that count
  bool next_cube_overflows = false;  ///< 3: whether [n+1,n+1,n+1] is refused
};

/// Everything the report and the trace print.
struct Evidence {
  ShapeFacts fixture;               ///< [2,3,4]
  std::vector<Cell> cells;          ///< its 24 elements in nested-loop order
  std::vector<Cell> picks;          ///< the three predicted indices
  ShapeFacts scalar;                ///< [] (rank 0)
  ShapeFacts empty;                 ///< [0,3,4]
  std::vector<std::string> errors;  ///< name=error text of each refusal
  std::size_t wrong_distinct = 0;  ///< misconception: distinct offsets of Σ i_a · n_a
  std::size_t wrong_largest = 0;   ///< misconception: its largest value
  Exercises exercises;             ///< the exercise answers
};

/// The fixture tensor: shape kDims, values 0, 1, …, 23.
[[nodiscard]] Step<Tensor> make_fixture();
/// Shape, count and strides of a shape whose count fits.
[[nodiscard]] ShapeFacts facts(const Shape& shape);
/// Every element of `tensor` in nested-loop order, with both forms of its offset.
[[nodiscard]] Step<std::vector<Cell>> visit_cells(const Tensor& tensor);
/// The inverse of the offset map: the index at `offset` (by division by the strides).
[[nodiscard]] std::vector<std::size_t> unravel(const Shape& shape, std::size_t offset);
/// The refused constructions and accesses, as `name=error text`.
[[nodiscard]] std::vector<std::string> refusals(const Tensor& tensor);
/// The exercise answers.
[[nodiscard]] Exercises solve_exercises();
/// Runs the whole chapter once.
[[nodiscard]] Step<Evidence> gather();

/// The report, one `key=value` line per fact.
[[nodiscard]] std::string render_report(const Evidence& evidence);
/// The trace records the diagram is drawn from.
[[nodiscard]] std::string render_trace(const Evidence& evidence);

}  // namespace ch08
