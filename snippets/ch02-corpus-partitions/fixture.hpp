// Chapter 2
#pragma once
// Chapter 2's frozen fixture, shared by the demo and tests/chapters/ch02_*_test.cpp:
// one broken corpus per reader error, one broken manifest per manifest error, and the
// exercises' inputs. The fixture corpus itself is the file fixture_corpus.txt.

#include <array>
#include <string_view>

namespace ch02 {

using namespace std::string_view_literals;

// region: fixture
/// A named input: a corpus file's bytes or a manifest's text.
struct TextCase {
  std::string_view name;  ///< the report key's suffix (the error code it shows)
  std::string_view text;  ///< the bytes; in a manifest, `{hash}` stands for the line
                          ///< `corpus_sha256<TAB>` + the fixture corpus's SHA-256
};

/// One corpus per reader error (the unreadable file is a path that does not exist).
inline constexpr std::array<TextCase, 7> kBrokenCorpora{{
    {"invalid_utf8", "# A 1\n1 ok\n# B 1\n1 caf\xE2\x82\n"sv},  // € cut short
    {"no_documents", ""sv},
    {"text_before_heading", "preface\n# A 1\n1 x\n"sv},
    {"empty_title", "# A 1\n1 x\n# \n1 y\n"sv},
    {"empty_document", "# A 1\n# B 1\n1 x\n"sv},
    {"duplicate_title", "# A 1\n1 x\n# B 1\n1 y\n# A 1\n1 z\n"sv},
    {"missing_final_newline", "# A 1\n1 x"sv},
}};

/// One manifest per manifest error, each read against the fixture corpus.
inline constexpr std::array<TextCase, 7> kBrokenManifests{{
    {"missing_hash", "# a comment\nGreetings 1\ttrain\n"sv},
    {"corpus_mismatch",
     "corpus_sha256\t0000000000000000000000000000000000000000000000000000000000000000\n"sv},
    {"malformed_line", "{hash}Greetings 1 train\n"sv},
    {"unknown_split", "{hash}Greetings 1\tdev\n"sv},
    {"unknown_document", "{hash}Greetings 3\ttrain\n"sv},
    {"duplicate_entry",
     "{hash}Greetings 1\ttrain\nFaces 1\ttest\nGreetings 1\ttest\n"sv},
    {"missing_document", "{hash}Greetings 1\ttrain\n"sv},
}};

/// Paths that do not exist (relative, so the messages are the same on every machine).
inline constexpr std::string_view kMissingCorpus = "no-such-corpus.txt";
inline constexpr std::string_view kMissingManifest = "no-such-partitions.tsv";
// endregion: fixture

/// Exercise 1: the title whose bucket the reader computes from its hash by hand.
inline constexpr std::string_view kHandTitle = "Faces 1";
/// Exercise 4: a document appended to the fixture corpus.
inline constexpr std::string_view kAppendedTitle = "Greetings 3";
/// Exercise 5: a document of the fixture renamed (the corpus changes under the
/// manifest).
inline constexpr std::string_view kRenamedFrom = "Faces 1";
inline constexpr std::string_view kRenamedTo = "Faces 01";
/// Exercise 3: the "last 5 % of the file is test" rule takes this share of documents.
inline constexpr double kTailShare = 0.05;

}  // namespace ch02
