"""Fuzzing the CoNLL-U reader with Hypothesis.

* Malformed files: a valid random file (random trees, MWTs, empty nodes, comments,
  Unicode) gets one mutation from a catalogue of malformations that are invalid by
  construction. The reader must raise ConlluError -- nothing else -- naming the file and
  the line (the exact line wherever the mutation fixes it), and skip mode must raise
  nothing but ConlluError either.
* Noise: random byte-level edits of a valid file. Whatever the reader accepts must be
  reproduced byte for byte by both writers (nothing is silently changed); anything else
  must be a ConlluError.

The default suite runs a few hundred files; ``-m slow`` runs 5,000 malformed files (and
2,000 noisy ones) and checks every mutation kind was exercised.
"""
import random
import warnings
from collections import Counter
from dataclasses import dataclass, field
from typing import Callable, Dict, List, Tuple

import pytest
import spacy
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from spacy_dynoracle.conllu_io import ConlluError, read_conllu, sentences_to_docs, write_conllu, write_sentences

UPOS = ["ADJ", "ADP", "NOUN", "PROPN", "PUNCT", "VERB", "X", "_"]
FORM_CHARS = "abcxyzÄöüßΩπжЯשׁمح中文😀🇩#_-.,!?09'\"=|\u0301"


# --------------------------------------------------------------------------- valid files


@dataclass
class GenSentence:
    comments: List[str]
    heads: List[int]  # heads[i] = head of word i+1
    words: List[List[str]] = field(default_factory=list)  # 10 columns; HEAD filled at serialisation
    mwts: List[Tuple[int, int, List[str]]] = field(default_factory=list)
    empties: List[Tuple[int, List[str]]] = field(default_factory=list)  # (after, columns)


def random_form(r: random.Random) -> str:
    form = "".join(r.choice(FORM_CHARS) for _ in range(r.randint(1, 5)))
    if r.random() < 0.1:
        form = form + " " + r.choice("abc")  # UD v2 allows inner spaces in FORM
    return form


def random_tree(r: random.Random, n: int) -> List[int]:
    """A random (possibly non-projective) tree: each word takes an earlier word of a random order."""
    order = list(range(1, n + 1))
    r.shuffle(order)
    heads = [0] * (n + 1)
    for k, word in enumerate(order[1:], 1):
        heads[word] = r.choice(order[:k])
    return heads[1:]


def random_sentence(r: random.Random, k: int) -> GenSentence:
    n = r.randint(1, 7)
    comments = [f"# sent_id = s{k}", "# text = ..."] if r.random() < 0.7 else []
    sentence = GenSentence(comments, random_tree(r, n))
    for i in range(1, n + 1):
        head = sentence.heads[i - 1]
        deprel = "root" if head == 0 else r.choice(["nsubj", "obj", "nmod:poss", "punct", "dep"])
        sentence.words.append([
            str(i), random_form(r), random_form(r), r.choice(UPOS), r.choice(["_", "NN", "X$"]),
            r.choice(["_", "Case=Nom", "Case=Nom|Number=Sing", "Number[psor]=Plur"]), "?", deprel,
            r.choice(["_", f"{head}:{deprel}"]), r.choice(["_", "SpaceAfter=No", "Gloss=a b", "SpaceAfter=No|Tr=x"]),
        ])
    i = 1
    while i < n:
        if r.random() < 0.25:
            last = min(n, i + r.randint(1, 2))
            sentence.mwts.append((i, last, [f"{i}-{last}", random_form(r)] + ["_"] * 7 + [r.choice(["_", "SpaceAfter=No"])]))
            i = last + 1
        else:
            i += 1
    for after in range(0, n + 1):
        for index in range(1, 1 + (r.random() < 0.15) * r.randint(1, 2)):
            sentence.empties.append((after, [f"{after}.{index}", random_form(r), "_", "X", "_", "_", "_", "_", "1:dep", "_"]))
    return sentence


def serialise(sentence: GenSentence) -> List[Tuple[str, object]]:
    """Items (kind, payload) in file order; written independently of the package's writer."""
    items: List[Tuple[str, object]] = [("comment", c) for c in sentence.comments]
    items += [("empty", list(cols)) for after, cols in sentence.empties if after == 0]
    for i, cols in enumerate(sentence.words, 1):
        items += [("mwt", list(m)) for first, _, m in sentence.mwts if first == i]
        word = list(cols)
        word[6] = str(sentence.heads[i - 1])
        items.append(("word", word))
        items += [("empty", list(c)) for after, c in sentence.empties if after == i]
    items.append(("blank", ""))
    return items


def to_bytes(items) -> bytes:
    lines = [payload if kind in ("comment", "blank", "raw") else "\t".join(payload) for kind, payload in items]
    return ("\n".join(lines) + "\n").encode("utf-8") if lines else b""


def random_file(r: random.Random) -> List[GenSentence]:
    return [random_sentence(r, k) for k in range(r.randint(1, 4))]


# --------------------------------------------------------------------------- mutations
# Each takes (random, sentences) and returns (file bytes, (first, last) line range where
# the error must be reported). All produce invalid CoNLL-U by construction.

Mutation = Callable[[random.Random, List[GenSentence]], Tuple[bytes, Tuple[int, int]]]
MUTATIONS: Dict[str, Mutation] = {}


def mutation(fn: Mutation) -> Mutation:
    MUTATIONS[fn.__name__] = fn
    return fn


def all_items(sentences):
    return [item for s in sentences for item in serialise(s)]


def pick(r, items, kinds) -> int:
    return r.choice([i for i, (kind, _) in enumerate(items) if kind in kinds])


def pick_token_line(r, sentences):
    """The file's lines and the index of a random word, multiword-token or empty-node line."""
    items = all_items(sentences)
    return items, pick(r, items, ("word", "mwt", "empty"))


def at_line(items, i) -> Tuple[bytes, Tuple[int, int]]:
    """The file, with its error to be reported at line i (0-based) alone."""
    return to_bytes(items), (i + 1, i + 1)


def edit_column(r, sentences, kinds, column_choices, values) -> Tuple[bytes, Tuple[int, int]]:
    items = all_items(sentences)
    i = pick(r, items, kinds)
    cols = items[i][1]
    column = r.choice(column_choices)
    cols[column] = r.choice(values) if isinstance(values, list) else values(cols[column])
    return at_line(items, i)


@mutation
def drop_column(r, sentences):
    items, i = pick_token_line(r, sentences)
    cols = items[i][1]
    k = r.randrange(10)
    if k == 0 and cols[1].startswith("#"):
        k = 1   # without its ID a line whose FORM starts with '#' is a valid comment line
    del cols[k]
    return at_line(items, i)


@mutation
def add_column(r, sentences):
    items, i = pick_token_line(r, sentences)
    items[i][1].insert(r.randrange(11), r.choice(["_", "x", ""]))
    return at_line(items, i)


@mutation
def tabs_to_spaces(r, sentences):
    items, i = pick_token_line(r, sentences)
    items[i] = ("raw", "\t".join(items[i][1]).replace("\t", r.choice([" ", "  "])))
    return at_line(items, i)


@mutation
def space_next_to_tab(r, sentences):
    items, i = pick_token_line(r, sentences)
    cols = items[i][1]
    k = r.randrange(9)
    if r.random() < 0.5:
        cols[k] += " "
    else:
        cols[k + 1] = " " + cols[k + 1]
    return at_line(items, i)


@mutation
def empty_column(r, sentences):
    return edit_column(r, sentences, ("word", "mwt", "empty"), range(10), [""])


@mutation
def bad_head_text(r, sentences):
    return edit_column(r, sentences, ("word",), [6], ["x", "-1", "1.5", "01", "\u0663", "+1", "1e3", "_0", "1,2"])


@mutation
def bad_id(r, sentences):
    return edit_column(r, sentences, ("word", "mwt", "empty"), [0],
                       ["1a", "01", "\u0661", "1.0", "0", "-1", "x", "1-1", "1..2", "1-2-3", "0-1", "_"])


@mutation
def duplicate_or_skipped_id(r, sentences):
    items = all_items(sentences)
    i = pick(r, items, ("word",))
    wid = int(items[i][1][0])
    items[i][1][0] = str(wid + 1 if wid == 1 or r.random() < 0.5 else wid - 1)
    return at_line(items, i)


@mutation
def missing_deprel(r, sentences):
    return edit_column(r, sentences, ("word",), [7], ["_"])


@mutation
def bad_upos(r, sentences):
    return edit_column(r, sentences, ("word",), [3], ["NOUNX", "noun", "SPACE", "EOL", "PUNC"])


@mutation
def bad_feats(r, sentences):
    return edit_column(r, sentences, ("word",), [5], ["Case", "A=B=C", "=x", "A=", "A=b|", "|A=b", "A=b||C=d"])


@mutation
def form_edge_whitespace(r, sentences):
    return edit_column(r, sentences, ("word",), [1, 2], lambda v: r.choice([" " + v, v + " ", "\u3000" + v, v + "\u00a0"]))


@mutation
def carriage_return(r, sentences):
    items = all_items(sentences)
    i = r.randrange(len(items))
    kind, payload = items[i]
    text = payload if kind in ("comment", "blank") else "\t".join(payload)
    at = len(text) if r.random() < 0.6 else r.randrange(len(text) + 1)
    items[i] = ("raw", text[:at] + "\r" + text[at:])
    return at_line(items, i)


@mutation
def byte_order_mark(r, sentences):
    return b"\xef\xbb\xbf" + to_bytes(all_items(sentences)), (1, 1)


@mutation
def missing_final_empty_line(r, sentences):
    data = to_bytes(all_items(sentences))
    n_lines = data.count(b"\n")
    cut = data[:-1] if r.random() < 0.5 else data[:-2]
    return cut, (n_lines - 1, n_lines - 1)


@mutation
def extra_empty_line(r, sentences):
    items = all_items(sentences)
    blanks = [-1] + [i for i, (kind, _) in enumerate(items) if kind == "blank"]
    i = r.choice(blanks) + 1
    items.insert(i, ("blank", ""))
    return at_line(items, i)


@mutation
def whitespace_separator(r, sentences):
    items = all_items(sentences)
    i = pick(r, items, ("blank",))
    items[i] = ("raw", r.choice([" ", "\t", "  ", "\u00a0"]))
    return at_line(items, i)


@mutation
def empty_file(r, sentences):
    return b"", (1, 1)


@mutation
def comment_only(r, sentences):
    comments = [c for s in sentences for c in s.comments] or ["# only a comment"]
    return to_bytes([("comment", c) for c in comments] + [("blank", "")]), (1, 1)


@mutation
def comment_after_words(r, sentences):
    items = all_items(sentences)
    i = pick(r, items, ("word",)) + 1
    items.insert(i, ("comment", r.choice(["# late", "#", "# text = x"])))
    return at_line(items, i)


@mutation
def invalid_utf8(r, sentences):
    items = all_items(sentences)
    i = r.randrange(len(items))
    kind, payload = items[i]
    text = (payload if kind in ("comment", "blank") else "\t".join(payload)).encode("utf-8")
    at = r.randrange(len(text) + 1)
    bad = r.choice([b"\xff", b"\xc3", b"\xed\xa0\x80", b"\x80", b"\xf8\x88\x80\x80\x80"])
    lines = [to_bytes(items[:i])[:-1]] if i else []
    data = b"\n".join(lines + [text[:at] + bad + text[at:]]) + b"\n" + to_bytes(items[i + 1:])
    return data, (i + 1, i + 1)


@mutation
def misplaced_multiword_token(r, sentences):
    k = r.randrange(len(sentences))
    s = sentences[k]
    items = serialise(s)
    if s.mwts and r.random() < 0.7:
        j = pick(r, items, ("mwt",))
        at = j + 1  # move it after its first word
        items.insert(at, items.pop(j))
    else:  # a new MWT after the last word, reaching past the end
        n = len(s.words)
        at = max(i for i, (kind, _) in enumerate(items) if kind == "word") + 1
        items.insert(at, ("mwt", [f"{n}-{n + 1}", "xy"] + ["_"] * 8))
    before = all_items(sentences[:k])
    line = len(before) + at + 1
    return to_bytes(before + items + all_items(sentences[k + 1:])), (line, line)


@mutation
def misplaced_empty_node(r, sentences):
    items = all_items(sentences)
    empties = [i for i, (kind, _) in enumerate(items) if kind == "empty"]
    if empties and r.random() < 0.7:
        i = r.choice(empties)
        after, index = items[i][1][0].split(".")
        items[i][1][0] = r.choice([f"{int(after) + 1}.{index}", f"{after}.{int(index) + 1}"])
    else:
        # Right after a word: "9.1" never follows word 9 (sentences have <= 7 words), and
        # "1.2" either follows another word or comes before any 1.1.
        i = pick(r, items, ("word",)) + 1
        items.insert(i, ("empty", [r.choice(["9.1", "1.2"])] + ["_"] * 9))
    return at_line(items, i)


def tree_mutation(r, sentences, change) -> Tuple[bytes, Tuple[int, int]]:
    k = r.randrange(len(sentences))
    change(r, sentences[k])
    before = len(all_items(sentences[:k]))
    return to_bytes(all_items(sentences)), (before + 1, before + len(serialise(sentences[k])) - 1)


def descendants(heads: List[int], word: int) -> List[int]:
    found = []
    for d in range(1, len(heads) + 1):
        a = heads[d - 1]
        while a != 0 and a != word and a != d:
            a = heads[a - 1]
        if a == word and d != word:
            found.append(d)
    return found


@mutation
def cycle(r, sentences):
    def change(r, s):
        word = r.randint(1, len(s.heads))
        s.heads[word - 1] = r.choice(descendants(s.heads, word) + [word])
    return tree_mutation(r, sentences, change)


@mutation
def several_roots(r, sentences):
    def change(r, s):
        non_roots = [i for i, h in enumerate(s.heads) if h != 0]
        if non_roots:
            s.heads[r.choice(non_roots)] = 0
        else:  # a one-word sentence: make it its own head instead
            s.heads[0] = 1
    return tree_mutation(r, sentences, change)


@mutation
def head_out_of_range(r, sentences):
    def change(r, s):
        s.heads[r.randrange(len(s.heads))] = len(s.heads) + r.randint(1, 3)
    return tree_mutation(r, sentences, change)


def count_lines(data: bytes) -> int:
    return max(1, data.count(b"\n") + (0 if data.endswith(b"\n") or not data else 1))


def check_malformed(path, r: random.Random, kind: str) -> None:
    sentences = random_file(r)
    data, (first, last) = MUTATIONS[kind](r, sentences)
    path.write_bytes(data)
    with pytest.raises(ConlluError) as info:
        list(read_conllu(path))
    error = info.value
    assert error.path == str(path)
    assert first <= error.line <= last, (kind, error.line, (first, last), str(error), data)
    assert str(error).startswith(f"{path}:{error.line}: ")
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        try:
            kept = list(read_conllu(path, on_error="skip"))
        except ConlluError:
            kept = []
    assert len(kept) <= len(sentences)


# --------------------------------------------------------------------------- noise

NOISE = [b"\t", b"\n", b" ", b"\r", b"#", b"0", b"1", b"2", b"-", b".", b"_", b"\xff", "é".encode(), b"=", b"|", b"\n\n"]
VOCAB = spacy.blank("xx").vocab


def add_noise(r: random.Random, data: bytes) -> bytes:
    for _ in range(r.randint(1, 3)):
        choice = r.random()
        lines = data.split(b"\n")
        if choice < 0.3 and data:
            at = r.randrange(len(data))
            data = data[:at] + data[at + r.randint(1, 3):]
        elif choice < 0.6:
            at = r.randrange(len(data) + 1)
            data = data[:at] + r.choice(NOISE) + data[at:]
        elif choice < 0.75 and len(lines) > 1:
            i = r.randrange(len(lines))
            lines.insert(i, lines[i])
            data = b"\n".join(lines)
        elif choice < 0.9 and len(lines) > 1:
            del lines[r.randrange(len(lines))]
            data = b"\n".join(lines)
        elif len(lines) > 1:
            i, j = r.randrange(len(lines)), r.randrange(len(lines))
            lines[i], lines[j] = lines[j], lines[i]
            data = b"\n".join(lines)
    return data


def check_noise(path, r: random.Random) -> bool:
    """True if the noisy file was accepted (and then reproduced exactly)."""
    data = add_noise(r, to_bytes(all_items(random_file(r))))
    path.write_bytes(data)
    try:
        sentences = list(read_conllu(path))
    except ConlluError as error:
        assert error.path == str(path) and 1 <= error.line <= count_lines(data)
        return False
    out = path.with_suffix(".out")
    write_sentences(sentences, out)
    assert out.read_bytes() == data
    write_conllu(sentences_to_docs(VOCAB, sentences, n_sents=r.randint(1, 3)), out)
    assert out.read_bytes() == data
    return True


# --------------------------------------------------------------------------- tests

# Hypothesis draws a seed per file (a failure prints it, so it replays exactly); the file
# is built from random.Random(seed), which keeps thousands of examples fast.
SEEDS = st.integers(0, 2**64 - 1)
FUZZ_SETTINGS = dict(deadline=None, database=None, suppress_health_check=list(HealthCheck))


@pytest.fixture(scope="module")
def fuzz_file(tmp_path_factory):
    return tmp_path_factory.mktemp("fuzz") / "fuzzed.conllu"


def run_malformed(path, n: int) -> Counter:
    seen: Counter = Counter()

    @settings(max_examples=n, **FUZZ_SETTINGS)
    @given(seed=SEEDS, kind=st.sampled_from(sorted(MUTATIONS)))
    def malformed_file_raises_conllu_error(seed, kind):
        check_malformed(path, random.Random(seed), kind)
        seen[kind] += 1

    malformed_file_raises_conllu_error()
    return seen


def run_noise(path, n: int) -> Counter:
    seen: Counter = Counter()

    @settings(max_examples=n, **FUZZ_SETTINGS)
    @given(seed=SEEDS)
    def noisy_file_is_rejected_or_kept_exactly(seed):
        seen[check_noise(path, random.Random(seed))] += 1

    noisy_file_is_rejected_or_kept_exactly()
    return seen


def test_valid_random_files_round_trip(fuzz_file):
    r = random.Random(7)
    for _ in range(100):
        data = to_bytes(all_items(random_file(r)))
        fuzz_file.write_bytes(data)
        sentences = list(read_conllu(fuzz_file))
        write_conllu(sentences_to_docs(VOCAB, sentences, n_sents=2), fuzz_file.with_suffix(".out"))
        assert fuzz_file.with_suffix(".out").read_bytes() == data


def test_fuzz_malformed_files(fuzz_file):
    seen = run_malformed(fuzz_file, 300)
    assert sum(seen.values()) == 300


def test_fuzz_noisy_files(fuzz_file):
    seen = run_noise(fuzz_file, 300)
    assert sum(seen.values()) == 300


@pytest.mark.slow
def test_fuzz_5000_malformed_files(fuzz_file):
    seen = run_malformed(fuzz_file, 5000)
    assert sum(seen.values()) == 5000
    assert set(seen) == set(MUTATIONS), set(MUTATIONS) - set(seen)
    assert min(seen.values()) >= 50


@pytest.mark.slow
def test_fuzz_2000_noisy_files(fuzz_file):
    seen = run_noise(fuzz_file, 2000)
    assert sum(seen.values()) == 2000
    assert seen[True] >= 50 and seen[False] >= 50  # both outcomes really exercised
