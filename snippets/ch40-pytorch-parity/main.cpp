// Chapter 40
// The appendix's demo: the library against PyTorch's committed reference data. The
// report on stdout; with --trace, the diagram's trace records. A parity case or float32
// tensor outside its criterion is a failed step (exit 1), so that `make traces` refuses
// to record a failing comparison as the new golden.
#include "evidence.hpp"

int main(int argc, char** argv) {
  return snippets::run_chapter("ch40-pytorch-parity", argc, argv, ch40::gather,
                               ch40::render_report, ch40::render_trace);
}
