// Chapter 24
// The demo: the report on stdout; with --trace, the diagram's trace records.
#include "evidence.hpp"

int main(int argc, char** argv) {
  return snippets::run_chapter("ch24-residual-connections", argc, argv, ch24::gather,
                               ch24::render_report, ch24::render_trace);
}
