// Chapter 6
// The demo: the report on stdout; with --trace, the diagram's trace records.
#include "evidence.hpp"

int main(int argc, char** argv) {
  return snippets::run_chapter("ch06-a-bigram-baseline", argc, argv, ch06::gather,
                               ch06::render_report, ch06::render_trace);
}
