// Chapter 39
// The demo: the report on stdout; with --trace, the diagram's trace records; with
// --train-long, the long run (`make train`); with --generate, text from a model file
// (`make generate`).
#include <string_view>

#include "evidence.hpp"

int main(int argc, char** argv) {
  if (argc >= 2 && std::string_view(argv[1]) == "--train-long")
    return ch39::train_long(argc, argv);
  if (argc >= 2 && std::string_view(argv[1]) == "--generate")
    return ch39::generate_cli(argc, argv);
  return snippets::run_chapter("ch39-the-end-to-end-llm", argc, argv, ch39::gather,
                               ch39::render_report, ch39::render_trace);
}
