// Chapter 7
// The demo: the report on stdout; with --trace, the diagram's trace records.
#include "evidence.hpp"

int main(int argc, char** argv) {
  return snippets::run_chapter("ch07-language-model-metrics", argc, argv, ch07::gather,
                               ch07::render_report, ch07::render_trace);
}
