// Chapter 9
// The demo: the report on stdout; with --trace, the diagram's trace records.
#include "evidence.hpp"

int main(int argc, char** argv) {
  return snippets::run_chapter("ch09-tensor-views", argc, argv, ch09::gather,
                               ch09::render_report, ch09::render_trace);
}
