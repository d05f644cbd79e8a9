// Chapter 35
// The demo: the report on stdout; with --trace, the diagram's trace records; with
// --save PATH, the checkpoint after the last step written to PATH (the committed
// reference file for the Python reader).
#include "evidence.hpp"

int main(int argc, char** argv) {
  if (argc == 3 && std::string_view(argv[1]) == "--save")
    return ch35::save_final(argv[2]);
  return snippets::run_chapter("ch35-checkpoints", argc, argv, ch35::gather,
                               ch35::render_report, ch35::render_trace);
}
