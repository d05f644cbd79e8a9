// Chapter 40
// The appendix's demo: the library against PyTorch's committed reference data. The
// criteria are asserted by tests/parity/parity_test.cpp, not here.
#include "evidence.hpp"

int main(int argc, char** argv) {
  return snippets::run_chapter("ch40-pytorch-parity", argc, argv, ch40::gather,
                               ch40::render_report, ch40::render_trace);
}
