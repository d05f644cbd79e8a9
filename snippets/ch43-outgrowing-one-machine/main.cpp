// Chapter 43
// The demo: the report on stdout; with --trace, the trace records.
#include "evidence.hpp"

int main(int argc, char** argv) {
  return snippets::run_chapter("ch43-outgrowing-one-machine", argc, argv, ch43::gather,
                               ch43::render_report, ch43::render_trace);
}
