// Chapter 1
#include <algorithm>

#include "evidence.hpp"

namespace ch01 {

namespace {

// region: exercise-naive-decoder
// Exercise 3: a decoder that only strips the marker bits and glues the payloads,
// checking nothing. It turns the overlong C0 AF into '/', which is the whole danger.
char32_t assemble_unchecked(const Bytes& bytes) {
  char32_t code_point =
      bytes[0] & (0xFFu >> llmfs::text::kUtf8Layout[bytes.size() - 1].marker_bits);
  for (std::size_t k = 1; k < bytes.size(); ++k)
    code_point = (code_point << 6) | (bytes[k] & 0x3Fu);
  return code_point;
}
// endregion: exercise-naive-decoder

}  // namespace

// region: exercises
// Every answer comes from the library: encode the boundaries, decode the candidates,
// and count which of 日本's byte values the King James text ever uses.
Step<Exercises> solve_exercises(const CorpusFacts& kjv) {
  Exercises x;
  for (char32_t cp : kBoundaries)
    x.boundaries.push_back(LLMFS_TRY(encode_word(std::u32string_view(&cp, 1))));
  for (const ByteCase& c : kWhichValid)
    x.which_valid.push_back(decode_case(c.name, llmfs::text::bytes_of(c.bytes)));
  const Bytes slash = llmfs::text::bytes_of(kOverlongSlash);
  x.naive_slash = assemble_unchecked(slash);
  x.overlong_slash = decode_case("C0_AF", slash);
  x.unseen = LLMFS_TRY(encode_word(kUnseenScript));
  x.unseen_bytes_in_kjv =
      static_cast<std::size_t>(std::ranges::count_if(x.unseen.bytes, [&](int b) {
        return std::ranges::binary_search(kjv.byte_values, b);
      }));
  return x;
}
// endregion: exercises

}  // namespace ch01
