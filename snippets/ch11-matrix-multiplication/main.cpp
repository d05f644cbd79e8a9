// Chapter 11
// The demo: the report on stdout; with --trace, the diagram's trace records.
#include "evidence.hpp"

int main(int argc, char** argv) {
  return snippets::run_chapter("ch11-matrix-multiplication", argc, argv, ch11::gather,
                               ch11::render_report, ch11::render_trace);
}
