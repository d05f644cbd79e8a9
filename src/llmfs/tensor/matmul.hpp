// Chapter 11
#pragma once
/// \file
/// \brief Matrix multiplication, batched over leading axes (Chapter 11): the teaching
/// loop, and a blocked, vectorised, threaded kernel with the same bits.

#include <cstddef>
#include <expected>
#include <string_view>

#include <llmfs/tensor/tensor.hpp>

namespace llmfs::tensor {

/// Which kernel computes a matmul. Every path adds each output's terms
/// `a[i,p]·b[p,j]` from 0.0 in increasing `p`, one rounded multiply and one rounded add
/// per term (the build forbids FMA contraction), so all of them give the same bits.
enum class MatmulPath {
  teaching,  ///< the chapter's i-p-j triple loop, one thread (the reference)
  portable,  ///< the blocked kernel on 2-double GCC generic vectors (any target)
  avx2,      ///< the blocked kernel on 4-double AVX2 vectors
  avx512f,   ///< the blocked kernel on 8-double AVX-512 vectors
};

/// How matmul runs: a path and a thread count.
struct MatmulOptions {
  MatmulPath path = MatmulPath::portable;  ///< kernel; an unsupported one runs portable
  std::size_t threads = 1;  ///< threads over a fixed partition of the output rows (≥ 1)
  /// A product of fewer FLOPs than this per thread uses fewer threads (starting one
  /// costs tens of microseconds); tests set 0 to split even tiny products.
  double min_flops_per_thread = 2097152.0;
};

/// The defaults: the widest path this processor supports (checked at run time with
/// `__builtin_cpu_supports`), unless the environment variable `LLMFS_MATMUL_PATH` names
/// a supported one (e.g. `teaching`, to time a whole program on the reference loop);
/// and the thread count from `LLMFS_MATMUL_THREADS` if it holds a number from 1 to 64,
/// else the number of hardware threads (at least 1). Read once, on the first call.
[[nodiscard]] MatmulOptions matmul_defaults() noexcept;

/// True when this processor can run `path` (teaching and portable always can).
[[nodiscard]] bool matmul_path_supported(MatmulPath path) noexcept;

/// The name of a path: "teaching", "portable", "avx2" or "avx512f".
[[nodiscard]] std::string_view matmul_path_name(MatmulPath path) noexcept;

/// The register tile and cache blocks of a path's kernel (Goto & van de Geijn 2008; the
/// names are BLIS's): an `mr × nr` tile of outputs in registers, `nr = w · vectors`;
/// a `kc`-long block of the inner axis; `mc` rows of a and `nc` columns of b packed per
/// block. The teaching path has no blocks: all are 1 but kc, mc and nc, which are 0.
struct MatmulBlocking {
  std::size_t w;        ///< doubles per vector register
  std::size_t vectors;  ///< vector registers across one tile row
  std::size_t mr;       ///< tile rows
  std::size_t nr;       ///< tile columns (w · vectors)
  std::size_t kc;       ///< inner-axis block
  std::size_t mc;       ///< rows of a per packed block
  std::size_t nc;       ///< columns of b per packed block
};

/// The blocking of `path`'s kernel, whether or not this processor supports it (an
/// unsupported path runs the portable kernel, and so its blocking).
[[nodiscard]] MatmulBlocking matmul_blocking(MatmulPath path) noexcept;

/// Batched matrix product over the last two axes: `a [..., n, k] · b [..., k, m] ->
/// [..., n, m]`.
///
/// Both operands need rank ≥ 2. Their leading (batch) axes broadcast with numpy rules,
/// so `[B,T,d_in] · [d_in,d_out] -> [B,T,d_out]` (a linear layer) and
/// `[B,h,T,d_h] · [B,h,d_h,T] -> [B,h,T,T]` (attention scores) both work.
/// Each output element is `Σ_p a[i,p]·b[p,j]`, added from 0.0 in increasing `p`: the
/// result is bitwise equal to the naive triple loop whatever the path and the thread
/// count. Runs with matmul_defaults().
/// \return TensorErrorCode::rank_too_small,
///         TensorErrorCode::inner_dimension_mismatch or
///         TensorErrorCode::broadcast_mismatch (of the batch axes), all with op
///         `"matmul"`.
[[nodiscard]] std::expected<Tensor, TensorError> matmul(const Tensor& a,
                                                        const Tensor& b);

/// matmul with an explicit path and thread count (benchmarks, and the tests that prove
/// every path and thread count gives the teaching loop's bits). Same errors.
[[nodiscard]] std::expected<Tensor, TensorError> matmul(const Tensor& a,
                                                        const Tensor& b,
                                                        const MatmulOptions& options);

/// Whether an operand of matmul_transposed is read as stored or as its transpose.
enum class Transpose {
  no,   ///< the operand's last two axes as stored
  yes,  ///< the operand's last two axes swapped (read in place, never copied)
};

/// matmul of `op(a) · op(b)`, where `op` swaps the last two axes of an operand marked
/// Transpose::yes: `aᵀ·b` for `[..., k, n]` and `[..., k, m]`, `a·bᵀ` for `[..., n, k]`
/// and `[..., m, k]` — the products a backward pass needs (Chapter 42). The fast paths
/// read the transposed operand through its strides while packing, so no transposed copy
/// is made and every output's sum is the same as matmul's on a transposed copy, bit for
/// bit. Same errors as matmul, naming the shapes after the transposition.
[[nodiscard]] std::expected<Tensor, TensorError> matmul_transposed(
    const Tensor& a, Transpose transpose_a, const Tensor& b, Transpose transpose_b,
    const MatmulOptions& options = matmul_defaults());

/// A matrix read in place: element `(i, j)` at `data[i·row_stride + j·column_stride]`,
/// so a transposed matrix, a block of rows or columns, or both, is a view with other
/// strides and another first element (Chapter 42).
struct MatrixView {
  const double* data;         ///< element (0, 0)
  std::size_t rows;           ///< number of rows
  std::size_t columns;        ///< number of columns
  std::size_t row_stride;     ///< distance between rows, in doubles
  std::size_t column_stride;  ///< distance between columns, in doubles
};

/// `c = a · b` for `a [n, k]` and `b [k, m]` on the calling thread, written into rows
/// of the caller's storage: element `(i, j)` goes to `c[i·ldc + j]`, and nothing else
/// of `c` is touched. `c` is neither read nor zero-filled (the blocked kernel's first
/// block of the inner axis writes every output), and after a thread's first call of a
/// given size nothing is allocated. Each output is matmul's sum, from +0.0 in
/// increasing `p`, so the bits are matmul's on the same numbers (Chapter 42: the fused
/// attention kernel multiplies the lower triangle's row panels with it). For `k = 0`
/// the outputs are +0.0. Preconditions: `a.columns == b.rows`, `ldc >= m`, and `c`
/// does not overlap `a` or `b`. `path` as in MatmulOptions (teaching: the reference
/// loop on a copy).
void multiply_into(const MatrixView& a, const MatrixView& b, double* c, std::size_t ldc,
                   MatmulPath path);

}  // namespace llmfs::tensor
