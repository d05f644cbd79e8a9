// Chapter 38
// Chapter 38's demo: prints the report, or with --trace the diagram's records.

#include "evidence.hpp"

int main(int argc, char** argv) {
  return snippets::run_chapter("ch38-cached-generation", argc, argv,
                               ch38::gather_evidence, ch38::render_report,
                               ch38::render_trace);
}
