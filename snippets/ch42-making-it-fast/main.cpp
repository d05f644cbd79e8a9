// Chapter 42
// The demo: the report on stdout; with --trace, the diagram's trace records; with
// --train-fast, the run (`make train-fast`); with --bench-train, timed training steps
// (tools/run-train-bench.sh).
#include <string_view>

#include "evidence.hpp"
#include "train_fast.hpp"

int main(int argc, char** argv) {
  if (argc >= 2 && std::string_view(argv[1]) == "--train-fast")
    return ch42::train_fast(argc, argv);
  if (argc >= 2 && std::string_view(argv[1]) == "--bench-train")
    return ch42::bench_train(argc, argv);
  return snippets::run_chapter("ch42-making-it-fast", argc, argv, ch42::gather,
                               ch42::render_report, ch42::render_trace);
}
