// Chapter 28
// The demo: the report on stdout; with --trace, the diagram's trace records
// instead.
#include <string_view>

#include <fmt/format.h>

#include "evidence.hpp"

int main(int argc, char** argv) {
  const bool trace = argc > 1 && std::string_view(argv[1]) == "--trace";
  const auto evidence = ch28::gather_evidence();
  if (!evidence) {
    fmt::print(stderr, "ch28-causal-masking: {}\n", evidence.error());
    return 1;
  }
  fmt::print("{}",
             trace ? ch28::render_trace(*evidence) : ch28::render_report(*evidence));
  return 0;
}
