// Chapter 20
// The demo: the report on stdout; with --trace, the diagram's trace records.
#include "evidence.hpp"

int main(int argc, char** argv) {
  return snippets::run_chapter("ch20-swiglu-feed-forward", argc, argv, ch20::gather,
                               ch20::render_report, ch20::render_trace);
}
