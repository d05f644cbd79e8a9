// Chapter 18
// The demo: the report on stdout; with --trace, the diagram's trace records.
#include "evidence.hpp"

int main(int argc, char** argv) {
  return snippets::run_chapter("ch18-token-embeddings", argc, argv, ch18::gather,
                               ch18::render_report, ch18::render_trace);
}
