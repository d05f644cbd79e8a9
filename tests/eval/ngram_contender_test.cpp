// Unit tests of eval/ngram_contender (Chapter 34): a byte window becomes the n-gram
// examples of its bytes under a tokenizer (EOS only when the window ends its document),
// and the contender's nats and tokens are those of window_examples(), scored by hand.
#include <cmath>
#include <memory>
#include <vector>

#include <gtest/gtest.h>

#include <llmfs/core/splitmix64.hpp>
#include <llmfs/eval/ngram_contender.hpp>

namespace {

using namespace llmfs;

/// The byte tokenizer (zero merges): bytes 0–255, BOS 256, EOS 257.
std::shared_ptr<const text::Tokenizer> bytes_tokenizer() {
  return std::make_shared<const text::Tokenizer>(text::Tokenizer::create({}).value());
}

TEST(NgramContender, AWindowBecomesItsBytesAfterBos) {
  const auto tok = bytes_tokenizer();
  const std::vector<text::TokenId> mid{'a', 'b', 'c'};
  const auto ex = eval::window_examples(*tok, mid, 2);
  ASSERT_EQ(ex.targets.batch, 3u);  // a, b, c: no EOS row
  EXPECT_EQ(ex.targets.ids, (std::vector<text::TokenId>{'a', 'b', 'c'}));
  EXPECT_EQ(ex.contexts.ids,
            (std::vector<text::TokenId>{256, 256, 256, 'a', 'a', 'b'}));
  const std::vector<text::TokenId> last{'a', 'b', 257};
  const auto end = eval::window_examples(*tok, last, 2);
  ASSERT_EQ(end.targets.batch, 3u);  // a, b, then EOS: the window ends its document
  EXPECT_EQ(end.targets.ids, (std::vector<text::TokenId>{'a', 'b', 257}));
}

TEST(NgramContender, ItsNatsAndTokensAreThoseOfItsWindows) {
  const auto tok = bytes_tokenizer();
  SplitMix64 rng(7);
  const auto model = std::make_shared<const models::NgramMlp>(
      models::NgramMlp::create({258, 2, 3, 4}, rng).value());
  // Two windows of T = 3 over one framed document: "abcdef" then EOS.
  const training::ExampleSet set{{{256, 'a', 'b', 'c', 'd', 'e', 'f', 257}},
                                 {{0, 0}, {0, 3}}};
  const auto contender = eval::ngram_contender("ngram", model, tok, 3);
  ASSERT_TRUE(contender.tokens);
  EXPECT_EQ(contender.tokens(set), 6u);  // a b c, then d e f (EOS is not a target)
  training::Batch batch{{2, 3, {256, 'a', 'b', 'c', 'd', 'e'}},
                        {2, 3, {'a', 'b', 'c', 'd', 'e', 'f'}},
                        {0, 1}};
  const auto loss = contender.model({}, batch, false);
  ASSERT_TRUE(loss.has_value());
  double nats = 0.0;  // each window alone, by the model's own mean loss
  for (const std::vector<text::TokenId>& w :
       {std::vector<text::TokenId>{'a', 'b', 'c'},
        std::vector<text::TokenId>{'d', 'e', 'f'}}) {
    const auto pass = model->forward(eval::window_examples(*tok, w, 2), false);
    ASSERT_TRUE(pass.has_value());
    nats += 3.0 * pass->loss.value().value().values()[0];
  }
  EXPECT_NEAR(loss->loss * 6.0, nats, 1e-12 * nats);  // loss × positions = total nats
}

}  // namespace
