// Chapter 21
// The demo: the report on stdout; with --trace, the diagram's trace records.
#include "evidence.hpp"

int main(int argc, char** argv) {
  return snippets::run_chapter("ch21-mini-batches", argc, argv, ch21::gather,
                               ch21::render_report, ch21::render_trace);
}
