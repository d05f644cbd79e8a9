// Chapter 17
// The demo: the report on stdout; with --trace, the diagram's trace records.
#include "evidence.hpp"

int main(int argc, char** argv) {
  return snippets::run_chapter("ch17-parameter-initialization", argc, argv,
                               ch17::gather, ch17::render_report, ch17::render_trace);
}
