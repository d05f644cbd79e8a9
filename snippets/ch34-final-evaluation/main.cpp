// Chapter 34
// The demo: the report on stdout; with --trace, the diagram's trace records.
#include "evidence.hpp"

int main(int argc, char** argv) {
  return snippets::run_chapter("ch34-final-evaluation", argc, argv, ch34::gather,
                               ch34::render_report, ch34::render_trace);
}
