// Chapter 42
// The demo: the report on stdout; with --trace, the diagram's trace records.
#include "evidence.hpp"

int main(int argc, char** argv) {
  return snippets::run_chapter("ch42-making-it-fast", argc, argv, ch42::gather,
                               ch42::render_report, ch42::render_trace);
}
