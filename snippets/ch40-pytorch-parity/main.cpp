// Chapter 40
// Appendix demo (chapter 40): the library against PyTorch's committed reference data.
// The report on stdout; with --trace, the diagram's trace records instead. The exit
// status is 1 when a parity case or the float32 criterion fails, so that `make traces`
// refuses to record a failing comparison as the new golden.
#include <algorithm>
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
  fmt::print("{}",
             trace ? ch40::render_trace(*evidence) : ch40::render_report(*evidence));
  const bool cases_pass =
      std::ranges::all_of(evidence->cases, [](const auto& c) { return c.passed(); });
  const bool float32_pass = std::ranges::all_of(evidence->float32.tensors,
                                                [](const auto& t) { return t.passed; });
  if (!cases_pass || !float32_pass) {
    fmt::print(stderr,
               "ch40-pytorch-parity: the library no longer matches PyTorch "
               "(passed:false above)\n");
    return 1;
  }
  return 0;
}
