// Search ranking for a book (read by Sphinx's searchtools.js, which keeps a Scorer defined
// before it): chapters first, then the API reference. Sphinx's defaults give an API entry
// whose name matches (11 + 5) more than a chapter whose text mentions the term (5), so a
// search for "softmax" listed API declarations above the chapter that teaches it.
// Parameters are not in the index at all (docs/_ext/llmfs_book.py gives them priority -1).
var Scorer = {
  score: (result) => {
    const [docname, , , , score] = result;
    // Any API result scores at most 4: below a chapter that contains the term (5).
    return docname.startsWith("reference/api") ? Math.min(score, 100) / 25 : score;
  },
  objNameMatch: 11,
  objPartialMatch: 6,
  objPrio: { 0: 15, 1: 5, 2: -5 },
  objPrioDefault: 0,
  title: 15,
  partialTitle: 7,
  term: 5,
  partialTerm: 2,
};
