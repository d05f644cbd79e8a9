// Chapter 0
// The demo: the report on stdout; with --trace, the diagram's trace records.
#include "evidence.hpp"

// region: demo-main
int main(int argc, char** argv) {
  return snippets::run_chapter("ch00-the-parts-of-an-llm", argc, argv, ch00::gather,
                               ch00::render_report, ch00::render_trace);
}
// endregion: demo-main
