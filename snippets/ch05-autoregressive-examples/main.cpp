// Chapter 5
// The demo: the report on stdout; with --trace, the diagram's trace records.
#include "evidence.hpp"

int main(int argc, char** argv) {
  return snippets::run_chapter("ch05-autoregressive-examples", argc, argv, ch05::gather,
                               ch05::render_report, ch05::render_trace);
}
