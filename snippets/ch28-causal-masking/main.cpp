// Chapter 28
#include "../common/chapter.hpp"
#include "evidence.hpp"

int main(int argc, char** argv) {
  return snippets::run_chapter("ch28-causal-masking", argc, argv, ch28::gather_evidence,
                               ch28::render_report, ch28::render_trace);
}
