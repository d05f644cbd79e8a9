// Chapter 43
// The demo: the report on stdout; with --trace, the trace records; with
// --round-trip ORIGINAL COPY, one line comparing the two checkpoint files (exit 1
// unless every value, the metadata and every byte are equal; exit 2 on a file it cannot
// read).
#include <string_view>

#include <fmt/format.h>

#include "evidence.hpp"

int main(int argc, char** argv) {
  if (argc == 4 && std::string_view(argv[1]) == "--round-trip") {
    const auto r = ch43::round_trip(argv[2], argv[3]);
    if (!r) {
      fmt::print(stderr, "ch43-outgrowing-one-machine: {}\n", r.error());
      return 2;
    }
    fmt::print("{}", ch43::render_round_trip(*r));
    return r->equal() ? 0 : 1;
  }
  return snippets::run_chapter("ch43-outgrowing-one-machine", argc, argv, ch43::gather,
                               ch43::render_report, ch43::render_trace);
}
