// Chapter 36
// The demo: the report on stdout; with --trace, the diagram's trace records.
#include "evidence.hpp"

int main(int argc, char** argv) {
  return snippets::run_chapter("ch36-temperature-and-top-k-sampling", argc, argv,
                               ch36::gather, ch36::render_report, ch36::render_trace);
}
