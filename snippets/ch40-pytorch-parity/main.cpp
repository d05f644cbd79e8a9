// Appendix demo (chapter 40): the library against PyTorch's committed reference data.
// The report on stdout; with --trace, the diagram's trace records instead.
#include <string_view>

#include <fmt/format.h>

#include "evidence.hpp"

int main(int argc, char** argv) {
  const bool trace = argc > 1 && std::string_view(argv[1]) == "--trace";
  const auto evidence = ch40::gather_evidence();
  if (!evidence) {
    fmt::print(stderr, "ch40-pytorch-parity: {}\n", evidence.error());
    return 1;
  }
  fmt::print("{}", trace ? ch40::render_trace(*evidence) : ch40::render_report(*evidence));
  return 0;
}
