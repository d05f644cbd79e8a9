// Chapter 22
// The demo: the report on stdout; with --trace, the diagram's trace records.
#include "evidence.hpp"

int main(int argc, char** argv) {
  return snippets::run_chapter("ch22-adamw", argc, argv, ch22::gather,
                               ch22::render_report, ch22::render_trace);
}
