// Chapter 37
// Chapter 37's demo: prints the report, or with --trace the diagram's records.

#include "evidence.hpp"

int main(int argc, char** argv) {
  return snippets::run_chapter("ch37-incremental-attention", argc, argv,
                               ch37::gather_evidence, ch37::render_report,
                               ch37::render_trace);
}
