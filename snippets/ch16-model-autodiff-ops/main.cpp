// Chapter 16
// The demo: the report on stdout; with --trace, the diagram's trace records.
#include "evidence.hpp"

int main(int argc, char** argv) {
  return snippets::run_chapter("ch16-model-autodiff-ops", argc, argv, ch16::gather,
                               ch16::render_report, ch16::render_trace);
}
