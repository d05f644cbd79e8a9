// Chapter 19
// The demo: the report on stdout; with --trace, the diagram's trace records.
#include "evidence.hpp"

int main(int argc, char** argv) {
  return snippets::run_chapter("ch19-linear-layers", argc, argv, ch19::gather,
                               ch19::render_report, ch19::render_trace);
}
