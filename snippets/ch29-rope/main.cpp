// Chapter 29
// The demo: prints the report, or with --trace the diagram's records.
#include <string_view>

#include <fmt/format.h>

#include "evidence.hpp"

int main(int argc, char** argv) {
  const bool trace = argc > 1 && std::string_view(argv[1]) == "--trace";
  const auto evidence = ch29::gather_evidence();
  if (!evidence) {
    fmt::print(stderr, "ch29-rope: {}\n", evidence.error());
    return 1;
  }
  fmt::print("{}",
             trace ? ch29::render_trace(*evidence) : ch29::render_report(*evidence));
  return 0;
}
