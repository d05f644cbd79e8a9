// Chapter 0
// The demo: the report on stdout; with --trace, the diagram's trace records.
#include <string_view>

#include <fmt/core.h>

#include "evidence.hpp"

// region: demo-main
int main(int argc, char** argv) {
  const ch00::ToyModel model;
  const ch00::Evidence evidence = ch00::gather(model, "ab");
  const bool trace = argc > 1 && std::string_view(argv[1]) == "--trace";
  fmt::print("{}", trace ? ch00::render_trace(model, evidence)
                         : ch00::render_report(model, evidence));
  return 0;
}
// endregion: demo-main
