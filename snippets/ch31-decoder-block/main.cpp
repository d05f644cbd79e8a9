// Chapter 31
// Chapter 31's demo: prints the report, or with --trace the diagram's records.

#include "evidence.hpp"

int main(int argc, char** argv) {
  return snippets::run_chapter("ch31-decoder-block", argc, argv, ch31::gather_evidence,
                               ch31::render_report, ch31::render_trace);
}
