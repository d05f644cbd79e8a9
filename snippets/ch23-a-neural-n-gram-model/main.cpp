// Chapter 23
// The demo: the report on stdout; with --trace, the diagram's trace records; with
// --train-long --log FILE, the long run (progress on stderr when it is a terminal).
#include <string_view>

#include "evidence.hpp"

int main(int argc, char** argv) {
  if (argc > 1 && std::string_view(argv[1]) == "--train-long")
    return ch23::train_long(argc, argv);
  return snippets::run_chapter("ch23-a-neural-n-gram-model", argc, argv, ch23::gather,
                               ch23::render_report, ch23::render_trace);
}
