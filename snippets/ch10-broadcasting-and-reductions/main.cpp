// Chapter 10
// The demo: the report on stdout; with --trace, the diagram's trace records.
#include "evidence.hpp"

int main(int argc, char** argv) {
  return snippets::run_chapter("ch10-broadcasting-and-reductions", argc, argv,
                               ch10::gather, ch10::render_report, ch10::render_trace);
}
