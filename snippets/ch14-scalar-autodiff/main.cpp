// Chapter 14
// The demo: the report on stdout; with --trace, the diagram's trace records.
#include "evidence.hpp"

int main(int argc, char** argv) {
  return snippets::run_chapter("ch14-scalar-autodiff", argc, argv, ch14::gather,
                               ch14::render_report, ch14::render_trace);
}
