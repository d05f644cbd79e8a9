// Chapter 12
// The demo: the report on stdout; with --trace, the diagram's trace records.
#include "evidence.hpp"

int main(int argc, char** argv) {
  return snippets::run_chapter("ch12-stable-softmax", argc, argv, ch12::gather,
                               ch12::render_report, ch12::render_trace);
}
