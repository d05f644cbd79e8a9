// Chapter 27
// The demo: the report on stdout; with --trace, the diagram's trace records
// instead.
#include <string_view>

#include <fmt/format.h>

#include "evidence.hpp"

int main(int argc, char** argv) {
  const bool trace = argc > 1 && std::string_view(argv[1]) == "--trace";
  const auto evidence = ch27::gather_evidence();
  if (!evidence) {
    fmt::print(stderr, "ch27-self-attention: {}\n", evidence.error());
    return 1;
  }
  fmt::print("{}",
             trace ? ch27::render_trace(*evidence) : ch27::render_report(*evidence));
  return 0;
}
