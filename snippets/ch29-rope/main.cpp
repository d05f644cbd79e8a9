// Chapter 29
// The demo: prints the report, or with --trace the diagram's records.

#include "evidence.hpp"

int main(int argc, char** argv) {
  return snippets::run_chapter("ch29-rope", argc, argv, ch29::gather_evidence,
                               ch29::render_report, ch29::render_trace);
}
