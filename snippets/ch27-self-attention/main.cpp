// Chapter 27
#include "../common/chapter.hpp"
#include "evidence.hpp"

int main(int argc, char** argv) {
  return snippets::run_chapter("ch27-self-attention", argc, argv, ch27::gather_evidence,
                               ch27::render_report, ch27::render_trace);
}
