#!/usr/bin/python3
"""Write (or check) Chapter 4's SentencePiece segmentations: data/text/ch04_sentencepiece.txt.

    /usr/bin/python3 tests/reference/make_sentencepiece_reference.py          # rewrite
    /usr/bin/python3 tests/reference/make_sentencepiece_reference.py --check  # exit 1 if stale

SentencePiece 0.1.97 (python3-sentencepiece) trains BPE on Genesis 1 (bible-kjv, one verse
a sentence, verse numbers dropped: the documents of tests/reference/make_bpe_reference.py)
with K = 16 learned pieces, the merges chapter 3's rules learn before their first tie, and
then ENCODES a set of strings into pieces. tests/text/tokenizer_sentencepiece_test.cpp
trains our BPE on the same documents, builds the Tokenizer and compares its tokens with
these pieces string by string.

Where the two encoders' rules coincide, and why (the settings below):

  * Characters and bytes. normalization_rule_name=identity: no NFKC, the text is left as
    it is. Every training character is ASCII, so a character SentencePiece knows is one
    byte, our byte token. byte_fallback=True: a character it does not know ('j', 'q',
    ''' or the two bytes of 'i' with a diaeresis) is output as its UTF-8 bytes <0xNN>;
    ours are those byte tokens, and no merge contains them in either.
  * The whitespace marker. SentencePiece writes each space as U+2581 (here written back
    as 0x20). add_dummy_prefix=False: no marker is put before the text (with it, "In"
    would become "\u2581In", a chunk ours never has). split_by_whitespace=True: a piece
    may hold U+2581 only as its first character, so a piece never crosses a space except
    at its start: exactly our split_chunks, which cuts before every space and keeps the
    space at the chunk's start. remove_extra_whitespaces=False: leading, trailing and
    doubled spaces are kept (by default they are squeezed, and "  the" would lose one).
  * Newlines. split_chunks also cuts before '\\n'; SentencePiece does not cut there. They
    still agree here because no training verse holds a newline: '\\n' is an unknown
    character (<0x0A>) for SentencePiece and in no merge of ours, so in both it stays a
    token of its own and the text after it merges as if it began the string. Trained on
    text with newlines (where ours never merges across one) they would part.
  * Which pair merges. SentencePiece's encoder joins the adjacent pair whose CONCATENATED
    STRING is the highest-scoring piece (score -rank: the earliest learned), leftmost
    first on equal scores; ours joins the lowest-rank merge PAIR, leftmost first. This
    script checks that each of the K pieces splits into two known strings (characters or
    pieces) in exactly one way, its training pair: then "the string is a piece" and "the
    pair is a merge" mean the same, and the two rules are one rule.

Where they part (PART lines): a text holding U+2581 itself, which SentencePiece reads as
a space and ours as the three bytes E2 96 81.

Every CASE is also encoded by chapter 4's rule written in Python
(make_tokenizer_reference.encode_chunk, on byte strings) with chapter 3's Python merges,
and the script fails unless SentencePiece gives the same pieces. Without sentencepiece it
fails, naming the interpreter.

Format: `#` comments, then

    DOCUMENT|text=<hex>                        (the training documents, in order)
    PIECE|rank=0|piece=<hex>                   (SentencePiece's learned pieces, K of them)
    CASE|kind=fixture|text=<hex>|pieces=<hex>,<hex>,...
    PART|text=<hex>|ours=<hex>,...|sentencepiece=<hex>,...

kind is fixture, training (a verse of Genesis 1) or unseen (a verse not trained on);
pieces are SentencePiece's, U+2581 written as 0x20 and <0xNN> as the byte NN.
"""

import io
import re
import subprocess
import sys
from pathlib import Path

import make_bpe_reference as bpe
import make_tokenizer_reference as rule
from text_common import script_main

DATA = Path(__file__).resolve().parent / "data" / "text" / "ch04_sentencepiece.txt"

FIXTURES = ["the", " the", "and", " and", "And", "beginning", "thing", "earth", "heaven",
            "low lower lowest newer", "ththth", "andand", "  the  and ", " ", "",
            "And God said\nLet there be light", "na\u00efve jazz quiz"]
UNSEEN = ["Gen2:1-7", "John1:1-5", "Ps23:1-6", "Rev22:21"]
PARTS = ["a\u2581the"]


def verses(reference):
    """The verses of `reference` from the bible-kjv package, numbers dropped."""
    printed = subprocess.run(["bible", "-l1000", reference], capture_output=True, check=True,
                             env={"COLUMNS": "80", "LC_ALL": "C", "PATH": "/usr/bin:/bin"}).stdout
    return [re.sub(rb"^\s*\d+ ", b"", line).decode("utf-8") for line in printed.splitlines()
            if re.match(rb"^\s+\d+ ", line)]


def train_sentencepiece(documents, learned):
    import sentencepiece as spm
    characters = {c for d in documents for c in d.replace(" ", "\u2581")}
    model = io.BytesIO()
    spm.SentencePieceTrainer.train(
        sentence_iterator=iter(documents), model_writer=model, model_type="bpe",
        vocab_size=3 + 256 + len(characters) + learned, byte_fallback=True,
        add_dummy_prefix=False, split_by_whitespace=True, remove_extra_whitespaces=False,
        split_by_unicode_script=False, split_by_number=False,
        normalization_rule_name="identity", character_coverage=1.0, num_threads=1,
        hard_vocab_limit=True, minloglevel=2)
    processor = spm.SentencePieceProcessor(model_proto=model.getvalue())
    return processor, sorted(characters)


def piece_bytes(processor, piece_id):
    piece = processor.id_to_piece(piece_id)
    if processor.is_byte(piece_id):
        return bytes([int(piece[3:5], 16)])  # <0xNN>
    return piece.replace("\u2581", " ").encode("utf-8")


def sentencepiece_encode(processor, text):
    return [piece_bytes(processor, i) for i in processor.encode(text, out_type=int)]


def rule_encode(text, rank):
    data = text.encode("utf-8")
    return [part for chunk in rule.chunks(data) for part in rule.encode_chunk(chunk, rank)]


def check_one_split(pieces, characters):
    """Each piece splits into two known strings only as its training pair."""
    known = {c.replace("\u2581", " ").encode("utf-8") for c in characters} | set(pieces)
    for rank, piece in enumerate(pieces):
        splits = [piece[:i] for i in range(1, len(piece))
                  if piece[:i] in known and piece[i:] in known]
        if len(splits) != 1:
            raise SystemExit("ch04_sentencepiece: piece %r (rank %d) splits %d ways"
                             % (piece, rank, len(splits)))


def hexes(parts):
    return ",".join(p.hex().upper() for p in parts)


def render():
    documents = [v.encode("utf-8") for v in verses("Gen1:1-31")]
    if len(documents) != 31:
        raise SystemExit("ch04_sentencepiece: expected 31 verses of Genesis 1")
    merges, stop = bpe.train(documents, 4096, stop_at_tie=True)
    ours = bpe.token_strings(merges)
    rank = {}
    for r, (left, right, _) in enumerate(merges):
        rank[(ours[left], ours[right])] = r
    processor, characters = train_sentencepiece([d.decode("utf-8") for d in documents],
                                                len(merges))
    learned = [piece_bytes(processor, i) for i in range(processor.get_piece_size())
               if not (processor.is_byte(i) or processor.is_control(i)
                       or processor.is_unknown(i))][:len(merges)]
    if stop != "tie" or learned != ours[256:]:
        raise SystemExit("ch04_sentencepiece: SentencePiece's pieces %r are not the merges "
                         "%r" % (learned, ours[256:]))
    check_one_split(learned, characters)
    cases = [("fixture", t) for t in FIXTURES]
    cases += [("training", d.decode("utf-8")) for d in documents]
    cases += [("unseen", v) for reference in UNSEEN for v in verses(reference)]
    lines = ["# script: tests/reference/make_sentencepiece_reference.py",
             "# reference: SentencePiece %s BPE (byte_fallback, identity, no dummy prefix, "
             "extra whitespace kept) trained on Genesis 1 with K=%d pieces"
             % (__import__("sentencepiece").__version__, len(merges)),
             "# cases: %d (%d fixtures, %d training verses, %d unseen verses), %d part"
             % (len(cases), len(FIXTURES), len(documents), len(cases) - len(FIXTURES)
                - len(documents), len(PARTS))]
    lines += ["DOCUMENT|text=%s" % d.hex().upper() for d in documents]
    lines += ["PIECE|rank=%d|piece=%s" % (r, p.hex().upper()) for r, p in enumerate(learned)]
    for kind, text in cases:
        pieces = sentencepiece_encode(processor, text)
        if pieces != rule_encode(text, rank):
            raise SystemExit("ch04_sentencepiece: the rules should coincide on %r: %r vs %r"
                             % (text, pieces, rule_encode(text, rank)))
        lines.append("CASE|kind=%s|text=%s|pieces=%s"
                     % (kind, text.encode("utf-8").hex().upper(), hexes(pieces)))
    for text in PARTS:
        pieces, mine = sentencepiece_encode(processor, text), rule_encode(text, rank)
        if pieces == mine:
            raise SystemExit("ch04_sentencepiece: expected %r to part" % text)
        lines.append("PART|text=%s|ours=%s|sentencepiece=%s"
                     % (text.encode("utf-8").hex().upper(), hexes(mine), hexes(pieces)))
    return "\n".join(lines) + "\n"


def main(argv):
    try:
        text = render()
    except ImportError:
        print("ch04_sentencepiece: python3-sentencepiece is missing for %s" % sys.executable)
        return 1
    return script_main(argv, DATA, lambda: text, __file__)


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
