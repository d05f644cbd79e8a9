// Chapter 30
// The demo: prints the report, or with --trace the diagram's records.

#include <cstdio>
#include <string_view>

#include <fmt/format.h>

#include "evidence.hpp"

// region: demo-main
int main(int argc, char** argv) {
  const std::string_view mode = argc > 1 ? argv[1] : "";
  if (argc > 2 || (!mode.empty() && mode != "--trace")) {
    fmt::print(stderr, "usage: ch30-multi-head-attention [--trace]\n");
    return 2;
  }
  auto evidence = ch30::gather_evidence();
  if (!evidence) {
    fmt::print(stderr, "ch30-multi-head-attention: {}\n", evidence.error());
    return 1;
  }
  fmt::print("{}", mode == "--trace" ? ch30::render_trace(*evidence)
                                     : ch30::render_report(*evidence));
  return 0;
}
// endregion: demo-main
