// Chapter 11
#include <array>

#include <llmfs/core/try.hpp>
#include <llmfs/tensor/broadcast.hpp>
#include <llmfs/tensor/matmul.hpp>
#include <llmfs/tensor/strided.hpp>

namespace llmfs::tensor {

namespace {

// region: matmul-kernel
// c[n,m] = a[n,k] · b[k,m] for one matrix pair; c must hold zeros. The i-p-j loop order
// reads b and c along rows (stride 1) in the inner loop; each c[i,j] still receives its
// terms a[i,p]·b[p,j] in increasing p, added to 0.0, exactly as the i-j-p dot product
// would: the two orders give the same bits, and only the speed differs.
void matmul_kernel(const double* a, const double* b, double* c, std::size_t n,
                   std::size_t k, std::size_t m) {
  for (std::size_t i = 0; i < n; ++i) {
    double* c_row = c + i * m;
    for (std::size_t p = 0; p < k; ++p) {
      const double a_ip = a[i * k + p];
      const double* b_row = b + p * m;
      for (std::size_t j = 0; j < m; ++j)
        c_row[j] += a_ip * b_row[j];
    }
  }
}
// endregion: matmul-kernel

// region: matmul-batch-axes
// The leading (batch) axes of a rank >= 2 shape.
Shape batch_shape(const Shape& shape) {
  return Shape(std::vector<std::size_t>(shape.begin(), shape.end() - 2));
}

// Strides of the batch axes counted in whole matrices, broadcast to `batch`: stride 0
// on a batch axis of length 1 reuses the same matrix for every batch entry.
std::vector<std::size_t> matrix_strides(const Shape& own_batch, const Shape& batch,
                                        std::size_t matrix_size) {
  std::vector<std::size_t> strides = broadcast_strides(own_batch, batch);
  for (std::size_t& s : strides)
    s *= matrix_size;
  return strides;
}
// endregion: matmul-batch-axes

// region: matmul-checks
// Both operands are matrices or stacks of them, the inner lengths agree, and the batch
// axes broadcast (the error then names the whole shapes and both batch parts).
[[nodiscard]] std::expected<Shape, TensorError> check_matmul(const Shape& sa,
                                                             const Shape& sb) {
  if (sa.rank() < 2 || sb.rank() < 2) {
    return std::unexpected(TensorError{TensorErrorCode::rank_too_small,
                                       "matmul",
                                       {sa, sb},
                                       "both operands need rank >= 2"});
  }
  const std::size_t k = sa[sa.rank() - 1], rows_b = sb[sb.rank() - 2];
  if (rows_b != k) {
    return std::unexpected(TensorError{TensorErrorCode::inner_dimension_mismatch,
                                       "matmul",
                                       {sa, sb},
                                       fmt::format("{} != {}", k, rows_b)});
  }
  auto batch = broadcast_shapes(batch_shape(sa), batch_shape(sb), "matmul");
  if (!batch) {
    TensorError error = batch.error();
    error.shapes = {sa, sb};
    error.detail =
        fmt::format("batch axes {} and {}", batch_shape(sa), batch_shape(sb));
    return std::unexpected(std::move(error));
  }
  return batch;
}
// endregion: matmul-checks

}  // namespace

// region: matmul
// One kernel call per entry of the broadcast batch: the odometer walks the batch axes
// with three sets of matrix strides, and each step hands the kernel one matrix of a,
// one of b and one of the output.
std::expected<Tensor, TensorError> matmul(const Tensor& a, const Tensor& b) {
  const Shape batch = LLMFS_TRY(check_matmul(a.shape(), b.shape()));
  const Shape& sa = a.shape();
  const Shape& sb = b.shape();
  const std::size_t n = sa[sa.rank() - 2], k = sa[sa.rank() - 1], m = sb[sb.rank() - 1];
  std::vector<std::size_t> out_dims = batch.as_vector();
  out_dims.push_back(n);
  out_dims.push_back(m);
  Tensor out = Tensor::zeros(Shape(std::move(out_dims)));
  if (out.size() == 0) return out;
  const auto a_strides = matrix_strides(batch_shape(sa), batch, n * k);
  const auto b_strides = matrix_strides(batch_shape(sb), batch, k * m);
  const auto c_strides = matrix_strides(batch, batch, n * m);
  const double* av = a.values().data();
  const double* bv = b.values().data();
  double* cv = out.mutable_values().data();
  for_each_strided<3>(
      batch,
      {std::span<const std::size_t>(a_strides), std::span<const std::size_t>(b_strides),
       std::span<const std::size_t>(c_strides)},
      [&](const std::array<std::size_t, 3>& at) {
        matmul_kernel(av + at[0], bv + at[1], cv + at[2], n, k, m);
      });
  return out;
}
// endregion: matmul

}  // namespace llmfs::tensor
