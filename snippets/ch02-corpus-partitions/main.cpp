// Chapter 2
// The demo: the report on stdout; with --trace, the diagram's trace records; with
// --write-manifest PATH, the manifest the rule computes for the course corpus.
#include <string_view>

#include "evidence.hpp"

int main(int argc, char** argv) {
  if (argc == 3 && std::string_view(argv[1]) == "--write-manifest") {
    const auto written = ch02::regenerate_manifest(LLMFS_CORPUS_PATH, argv[2]);
    if (!written)
      fmt::print(stderr, "ch02-corpus-partitions: {}\n", written.error());
    else
      fmt::print("{}: {} documents\n", argv[2], *written);
    return written ? 0 : 1;
  }
  return snippets::run_chapter("ch02-corpus-partitions", argc, argv, ch02::gather,
                               ch02::render_report, ch02::render_trace);
}
