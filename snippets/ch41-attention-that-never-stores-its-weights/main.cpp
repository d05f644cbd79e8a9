// Chapter 41
// Chapter 41's demo: prints the report, or with --trace the diagram's records.

#include "evidence.hpp"

int main(int argc, char** argv) {
  return snippets::run_chapter("ch41-attention-that-never-stores-its-weights", argc,
                               argv, ch41::gather_evidence, ch41::render_report,
                               ch41::render_trace);
}
