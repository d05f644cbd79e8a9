// Chapter 3
// The demo: the report on stdout; with --trace, the diagram's trace records.
#include "evidence.hpp"

int main(int argc, char** argv) {
  return snippets::run_chapter("ch03-learning-bpe-merges", argc, argv, ch03::gather,
                               ch03::render_report, ch03::render_trace);
}
