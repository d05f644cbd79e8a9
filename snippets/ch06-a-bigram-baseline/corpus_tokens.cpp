// Chapter 6
#include "corpus_tokens.hpp"

namespace ch06 {

snippets::Step<std::vector<EncodedCorpus>> encode_corpus() {
  return std::vector<EncodedCorpus>{};
}

}  // namespace ch06
