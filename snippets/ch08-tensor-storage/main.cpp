// Chapter 8
// The demo: the report on stdout; with --trace, the diagram's trace records.
#include "evidence.hpp"

int main(int argc, char** argv) {
  return snippets::run_chapter("ch08-tensor-storage", argc, argv, ch08::gather,
                               ch08::render_report, ch08::render_trace);
}
