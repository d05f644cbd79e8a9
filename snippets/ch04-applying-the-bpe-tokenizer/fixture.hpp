// Chapter 4
#pragma once
// Chapter 4's frozen fixture, shared by the demo and tests/chapters/ch04_*_test.cpp: a
// hand-made merge table, the text the reader encodes by hand, the streaming cases, one
// damaged merges file per error, and the exercises' inputs.

#include <array>
#include <string_view>

#include <llmfs/text/merges.hpp>

namespace ch04 {

using llmfs::text::TokenId;
using llmfs::text::TokenPair;

// region: fixture
/// Eight merges by hand, in rank order; merge r makes token 256 + r.
inline constexpr std::array<TokenPair, 8> kLowMerges{{
    {'l', 'o'},  // 256 lo
    {256, 'w'},  // 257 low
    {'e', 'r'},  // 258 er
    {'e', 's'},  // 259 es
    {259, 't'},  // 260 est
    {' ', 257},  // 261 " low"
    {'w', 'e'},  // 262 we
    {261, 258},  // 263 " lower"
}};

/// The text of the prediction: four chunks, "low", " lower", " lowest", " newer".
inline constexpr std::string_view kPredictText = "low lower lowest newer";
// endregion: fixture

// region: edge-fixtures

/// The streaming decoder's text: 1 + 2 + 1 + 1 + 1 + 1 + 3 + 4 = 14 bytes.
inline constexpr std::string_view kStreamText = "héllo €🙂";

/// A damaged copy of the fixture's merges file: replace `find` by `replace`, or keep
/// only the first `keep_lines` lines (0: all), or (`missing`) read a file that is not
/// there.
struct DamagedFile {
  std::string_view name;     ///< the report key's suffix
  std::string_view find;     ///< text to replace (empty: none)
  std::string_view replace;  ///< its replacement
  int keep_lines = 0;        ///< lines kept from the start; 0 keeps all
};

inline constexpr std::array<DamagedFile, 6> kDamagedFiles{{
    {"bad_header", "llmfs-bpe-merges version=1", "bpe version=1"},
    {"wrong_version", "version=1", "version=2"},
    {"malformed_line", "257 256 119", "257 256 w"},
    {"later_token", "257 256 119", "257 258 119"},
    {"truncated", "", "", 5},
    {"checksum", "258 101 114", "258 101 115"},
}};
// endregion: edge-fixtures

/// The name the damaged files are parsed under (errors name it with the line).
inline constexpr std::string_view kDamagedName = "low.merges";
/// A merges file that does not exist (read_merges names it).
inline constexpr std::string_view kMissingFile = "no-such-folder/kjv-4096.merges";

/// Exercise 1: a word the reader encodes by hand with kLowMerges.
inline constexpr std::string_view kSlower = " slower";
/// Exercise 2: the course's merge count, and the fixture's.
inline constexpr std::size_t kCourseMerges = 3838;
/// Exercise 3: the chunk where a greedy longest match and the rank rule part ways.
inline constexpr std::string_view kNewer = " newer";
/// Exercise 4: € fed to the streaming decoder one byte token at a time.
inline constexpr std::array<TokenId, 3> kEuroBytes{0xE2, 0x82, 0xAC};

}  // namespace ch04
