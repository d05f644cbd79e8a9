// Chapter 42
// The report, one `key=value` line per fact, and the trace records of the diagram.
#include <fmt/ranges.h>

#include "evidence.hpp"

namespace ch42 {

namespace {

std::string ch42_cut(const Cut& c) {
  return fmt::format(
      "row_tiles:{} col_tiles:{} k_blocks:{} tile_calls:{} edge_calls:{}", c.row_tiles,
      c.col_tiles, c.k_blocks, c.tile_calls, c.edge_calls);
}

// Block starts and lengths of one axis of `length` cut every `block`.
std::pair<std::vector<std::size_t>, std::vector<std::size_t>> blocks(
    std::size_t length, std::size_t block) {
  std::vector<std::size_t> starts, lengths;
  for (std::size_t s = 0; s < length; s += block) {
    starts.push_back(s);
    lengths.push_back(std::min(block, length - s));
  }
  return {starts, lengths};
}

}  // namespace

std::string render_report(const Evidence& e) {
  std::vector<std::string> lines;
  for (const auto& [name, b] : e.blockings)
    lines.push_back(
        fmt::format("blocking_{}=w:{} vectors:{} mr:{} nr:{} kc:{} mc:{} nc:{}", name,
                    b.w, b.vectors, b.mr, b.nr, b.kc, b.mc, b.nc));
  lines.push_back(fmt::format("predict=[{},{}]·[{},{}] {} bitwise_equal:{}", kPredict.n,
                              kPredict.k, kPredict.k, kPredict.m, ch42_cut(e.predict),
                              e.predict_equal));
  for (const BitCheck& c : e.checks)
    lines.push_back(fmt::format("bits_[{},{}]·[{},{}]=equal:{}/{}", c.shape.n,
                                c.shape.k, c.shape.k, c.shape.m, c.equal, c.compared));
  lines.push_back(fmt::format("flops_square=n1024:{:.0f} n2048:{:.0f}",
                              e.square_flops[0], e.square_flops[1]));
  for (std::size_t s = 0; s < kAttention.size(); ++s)
    lines.push_back(fmt::format(
        "flops_attention_forward=(B,T,d,h):({},{},{},{}) matmul_flops:{:.0f}",
        kAttention[s].batch, kAttention[s].tokens, kAttention[s].width,
        kAttention[s].heads, e.attention_flops[s]));
  for (const auto& [name, r] : {std::pair{"zen3_avx2", e.roofline},
                                std::pair{"skylake_x_avx512f", e.roofline_skylake_x}})
    lines.push_back(
        fmt::format("roofline_{}=peak_mul_add_gflops:{:.1f} peak_fma_gflops:{:.1f} "
                    "tile_flop_per_byte:{:.3f} "
                    "ridge_flop_per_byte:{:.2f} n1024_flop_per_byte:{:.2f} "
                    "n1024_attainable_gflops:{:.1f}",
                    name, r.peak_mul_add, r.peak_fma, r.tile_intensity, r.ridge,
                    r.intensity_1024, r.attainable_1024));
  const Exercises& x = e.exercises;
  lines.push_back(fmt::format("exercise_1=avx2_registers:{}/16 avx512_registers:{}/32",
                              x.avx2_registers, x.avx512_registers));
  lines.push_back(fmt::format("exercise_2=n1024 {}", ch42_cut(x.square_1024)));
  lines.push_back(fmt::format("exercise_3=(4,128,128,4) forward_matmul_flops:{:.0f}",
                              x.attention_forward_flops));
  lines.push_back(fmt::format("exercise_4=smallest_compute_bound_n:{}",
                              x.smallest_compute_bound_n));
  const OrderCheck& o = e.order;
  lines.push_back(fmt::format(
      "misconception=[97,257]·[257,65] outputs:{} fma_differs:{} "
      "fma_max_relative:{:.1e} "
      "split_sum_differs:{} fast_path_differs:{}",
      o.outputs, o.fma_differs, o.fma_max_relative, o.split_differs, o.fast_differs));
  return snippets::join_lines(lines);
}

// region: trace-records
// BLOCKING: the AVX-512 kernel's sizes and the traced product; AXIS: how each of the
// five loops cuts its axis (starts and lengths); STEP: the (p-block, row-block) pairs
// in the order the kernel runs them, and whether each output's sum starts there or
// resumes.
std::string render_trace(const Evidence& e) {
  const MatmulBlocking& b = e.blockings.back().second;
  const Product& t = kTraced;
  std::vector<std::string> records;
  records.push_back(fmt::format("BLOCKING|mr={}|nr={}|kc={}|mc={}|nc={}|n={}|k={}|m={}",
                                b.mr, b.nr, b.kc, b.mc, b.nc, t.n, t.k, t.m));
  const std::array<std::tuple<const char*, std::size_t, std::size_t>, 5> loops{
      {{"jc", t.m, b.nc},
       {"pc", t.k, b.kc},
       {"ic", t.n, b.mc},
       {"jr", std::min(t.m, b.nc), b.nr},
       {"ir", std::min(t.n, b.mc), b.mr}}};
  for (const auto& [loop, length, block] : loops) {
    const auto [starts, lengths] = blocks(length, block);
    records.push_back(
        fmt::format("AXIS|loop={}|length={}|block={}|starts={}|lengths={}", loop,
                    length, block, fmt::join(starts, ","), fmt::join(lengths, ",")));
  }
  std::size_t step = 0;
  for (const std::size_t p0 : blocks(t.k, b.kc).first)
    for (const std::size_t i0 : blocks(t.n, b.mc).first)
      records.push_back(fmt::format("STEP|order={}|p0={}|i0={}|sums={}", ++step, p0, i0,
                                    p0 == 0 ? "start" : "resume"));
  return snippets::join_lines(records);
}
// endregion: trace-records

}  // namespace ch42
