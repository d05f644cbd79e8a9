// Chapter 4
// The demo: the report on stdout; with --trace, the diagram's trace records.
#include "evidence.hpp"

int main(int argc, char** argv) {
  return snippets::run_chapter("ch04-applying-the-bpe-tokenizer", argc, argv,
                               ch04::gather, ch04::render_report, ch04::render_trace);
}
