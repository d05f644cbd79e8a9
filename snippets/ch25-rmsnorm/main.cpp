// Chapter 25
// The demo: the report on stdout; with --trace, the diagram's trace records.
#include "evidence.hpp"

int main(int argc, char** argv) {
  return snippets::run_chapter("ch25-rmsnorm", argc, argv, ch25::gather,
                               ch25::render_report, ch25::render_trace);
}
