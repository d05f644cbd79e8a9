// Chapter 1
// The demo: the report on stdout; with --trace, the diagram's trace records.
#include "evidence.hpp"

int main(int argc, char** argv) {
  return snippets::run_chapter("ch01-text-units", argc, argv, ch01::gather,
                               ch01::render_report, ch01::render_trace);
}
