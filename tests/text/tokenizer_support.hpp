#pragma once
// Chapter 4 test helpers shared by tokenizer_test, stream_decoder_test and
// merges_file_test: the chapter's hand table and a tokenizer that must build.

#include <vector>

#include <fmt/format.h>
#include <gtest/gtest.h>

#include <llmfs/text/tokenizer.hpp>

namespace ch04_tokenizer_support {

using llmfs::text::MergeTable;
using llmfs::text::TokenId;
using llmfs::text::Tokenizer;
using Ids = std::vector<TokenId>;

inline Tokenizer make(MergeTable table) {
  auto made = Tokenizer::create(std::move(table));
  EXPECT_TRUE(made.has_value()) << fmt::format("{}", made.error());
  return made ? *std::move(made) : *Tokenizer::create({});
}

// The chapter's hand table (chapters/04-applying-the-bpe-tokenizer.md, Derive).
inline MergeTable low_table() {
  return {{{'l', 'o'},    // 256 lo
           {256, 'w'},    // 257 low
           {'e', 'r'},    // 258 er
           {'e', 's'},    // 259 es
           {259, 't'},    // 260 est
           {' ', 257},    // 261 " low"
           {'w', 'e'},    // 262 we
           {261, 258}}};  // 263 " lower"
}

}  // namespace ch04_tokenizer_support
