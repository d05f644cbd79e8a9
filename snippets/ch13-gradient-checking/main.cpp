// Chapter 13
// The demo: the report on stdout; with --trace, the diagram's trace records.
#include "evidence.hpp"

int main(int argc, char** argv) {
  return snippets::run_chapter("ch13-gradient-checking", argc, argv, ch13::gather,
                               ch13::render_report, ch13::render_trace);
}
