// Chapter 33
// The demo: the report on stdout; with --trace, the diagram's trace records; with
// --train-long LOG, the long run (`make train-decoder`).
#include <string_view>

#include "evidence.hpp"

int main(int argc, char** argv) {
  if (argc == 3 && std::string_view(argv[1]) == "--train-long")
    return ch33::train_long(argv[2]);
  return snippets::run_chapter("ch33-training-and-model-selection", argc, argv,
                               ch33::gather, ch33::render_report, ch33::render_trace);
}
