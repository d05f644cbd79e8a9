// Chapter 41's benchmark program: one measurement per process, printed as one JSON
// line.
//
//   llmfs_attention_bench memory KERNEL T BLOCK   multi-head attention (B = 1, h = 8,
//       d_model = 512, RoPE) forward + backward on T tokens; prints the resident set
//       before the layer exists and the process's peak (VmHWM) after the backward pass.
//   llmfs_attention_bench time KERNEL T BLOCK REPEATS   the per-head kernel alone on
//       Q, K, V [1, 8, T, 64]: forward + backward, REPEATS times, each on a fresh tape;
//       prints every wall time.
// KERNEL is `stored` (Chapter 30's tables) or `streaming` (Chapter 41). Threads: the
// library's (LLMFS_MATMUL_THREADS). tools/run-attention-bench.sh runs it once per case.
#include <chrono>
#include <cstdio>
#include <fstream>
#include <string>
#include <string_view>
#include <vector>

#include <fmt/format.h>

#include <llmfs/attention/multi_head.hpp>
#include <llmfs/attention/streaming.hpp>
#include <llmfs/autograd/tape.hpp>
#include <llmfs/nn/init.hpp>
#include <llmfs/tensor/matmul.hpp>

namespace {

namespace at = llmfs::attention;
using llmfs::tensor::Shape;
using llmfs::tensor::Tensor;

// A field of /proc/self/status in bytes (the kernel reports kB).
long long status_bytes(std::string_view field) {
  std::ifstream status("/proc/self/status");
  std::string line;
  while (std::getline(status, line)) {
    if (line.starts_with(field))
      return std::stoll(line.substr(field.size() + 1)) * 1024;
  }
  return -1;
}

Tensor draw(const Shape& shape, llmfs::SplitMix64& rng) {
  return llmfs::nn::uniform_fan_in(shape, 1, rng).value();
}

at::AttentionKernel kernel_of(std::string_view name, std::size_t block) {
  if (name == "streaming") return at::streaming_kernel(block).value();
  return at::AttentionKernel{};
}

int memory(std::string_view name, std::size_t tokens, std::size_t block) {
  const long long baseline = status_bytes("VmRSS:");
  const auto start = std::chrono::steady_clock::now();
  {
    llmfs::autograd::Tape tape;
    llmfs::SplitMix64 rng(41);
    auto layer = at::MultiHeadAttention::create(tape, "attention", 512, 8,
                                                at::RotaryPositions{tokens, 10000.0},
                                                rng, kernel_of(name, block))
                     .value();
    auto x = tape.constant(draw(Shape{1, tokens, 512}, rng));
    auto forward = layer.forward(x, 0).value();
    llmfs::autograd::backward(forward.output, draw(Shape{1, tokens, 512}, rng)).value();
  }
  const double seconds =
      std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  fmt::print(
      "{{\"mode\": \"memory\", \"kernel\": \"{}\", \"tokens\": {}, \"block\": {}, "
      "\"baseline_bytes\": {}, \"peak_bytes\": {}, \"seconds\": {:.3f}}}\n",
      name, tokens, block, baseline, status_bytes("VmHWM:"), seconds);
  return 0;
}

int time(std::string_view name, std::size_t tokens, std::size_t block, int repeats) {
  const auto kernel = kernel_of(name, block);
  llmfs::SplitMix64 rng(41);
  const Shape shape{1, 8, tokens, 64};
  const Tensor q = draw(shape, rng), k = draw(shape, rng), v = draw(shape, rng),
               upstream = draw(shape, rng);
  std::vector<double> seconds;
  for (int r = 0; r < repeats; ++r) {
    const auto start = std::chrono::steady_clock::now();
    llmfs::autograd::Tape tape;
    auto head = kernel
                    .run(tape.parameter(q), tape.parameter(k), tape.parameter(v),
                         kernel.block_size)
                    .value();
    llmfs::autograd::backward(head.output, upstream).value();
    tape.release();
    seconds.push_back(
        std::chrono::duration<double>(std::chrono::steady_clock::now() - start)
            .count());
  }
  fmt::print(
      "{{\"mode\": \"time\", \"kernel\": \"{}\", \"tokens\": {}, \"block\": {}, "
      "\"threads\": {}, \"path\": \"{}\", \"seconds\": [{:.4f}]}}\n",
      name, tokens, block, llmfs::tensor::matmul_defaults().threads,
      llmfs::tensor::matmul_path_name(llmfs::tensor::matmul_defaults().path),
      fmt::join(seconds, ", "));
  return 0;
}

}  // namespace

int main(int argc, char** argv) {
  const std::vector<std::string> args(argv + 1, argv + argc);
  if (args.size() >= 4 && args[0] == "memory")
    return memory(args[1], std::stoul(args[2]), std::stoul(args[3]));
  if (args.size() >= 5 && args[0] == "time")
    return time(args[1], std::stoul(args[2]), std::stoul(args[3]), std::stoi(args[4]));
  std::fprintf(stderr,
               "usage: llmfs_attention_bench memory KERNEL T BLOCK\n"
               "       llmfs_attention_bench time KERNEL T BLOCK REPEATS\n");
  return 2;
}
