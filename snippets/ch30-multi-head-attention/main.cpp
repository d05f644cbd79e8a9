// Chapter 30
// Chapter 30's demo: prints the report, or with --trace the diagram's records.

#include "evidence.hpp"

int main(int argc, char** argv) {
  return snippets::run_chapter("ch30-multi-head-attention", argc, argv,
                               ch30::gather_evidence, ch30::render_report,
                               ch30::render_trace);
}
