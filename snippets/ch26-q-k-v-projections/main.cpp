// Chapter 26
// The demo: the report on stdout; with --trace, the diagram's trace records.
#include "evidence.hpp"

int main(int argc, char** argv) {
  return snippets::run_chapter("ch26-q-k-v-projections", argc, argv, ch26::gather,
                               ch26::render_report, ch26::render_trace);
}
