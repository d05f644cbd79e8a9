// Chapter 32
// Chapter 32's demo: prints the report, or with --trace the diagram's records.

#include "evidence.hpp"

int main(int argc, char** argv) {
  return snippets::run_chapter("ch32-decoder-model", argc, argv, ch32::gather_evidence,
                               ch32::render_report, ch32::render_trace);
}
