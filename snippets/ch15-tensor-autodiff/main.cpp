// Chapter 15
// The demo: the report on stdout; with --trace, the diagram's trace records.
#include "evidence.hpp"

int main(int argc, char** argv) {
  return snippets::run_chapter("ch15-tensor-autodiff", argc, argv, ch15::gather,
                               ch15::render_report, ch15::render_trace);
}
