"""Padded answers for the verbosity-bias experiment: more words, no more information.

A score gap between a concise answer and its padded twin is the judge paying for
length only if the padding adds nothing a judge could fairly reward, so every
transformation here is content-free by construction (see ``docs/internals.md``).
"""

from __future__ import annotations

import hashlib
import random
import re
from collections.abc import Iterator, Sequence

__all__ = ["pad_answer", "repetitive_list", "split_sentences", "word_count"]

# A fenced code block: an opening fence of 3+ backticks or tildes at a line start, up to
# a closing fence of the same characters, or to the end of the text if it never closes.
_FENCE = re.compile(r"^ {0,3}(`{3,}|~{3,})[^\n]*\n?.*?(?:^ {0,3}\1[ \t]*$|\Z)", re.M | re.S)
# Sentence-ending punctuation, any closing quotes or brackets, then whitespace.
_END = re.compile(r"[.!?]+[\"'”’)\]]*(?=\s)")
_PARAGRAPH = re.compile(r"\n[ \t]*\n")


def _pool(text: str) -> tuple[str, ...]:
    """Phrases written one after another, separated by " | " (one per line would be long)."""
    return tuple(phrase.strip() for phrase in text.split("|"))


# Abbreviations whose full stop does not end a sentence. "etc." and "no." are left out
# on purpose: they end a sentence ("No. It ...") at least as often as they sit inside one.
_ABBREVIATIONS = frozenset(
    _pool("e.g. | i.e. | cf. | vs. | viz. | dr. | mr. | mrs. | ms. | prof. | st. | jr. | fig.")
)
# First words that may be lower-cased after a frame ("In other words, the ..."), besides
# any word the question or answer also writes in lower case. Anything else may be a name
# ("Jupiter"), so the sentence goes after a colon instead, capital letter and all.
_LOWERABLE = frozenset(
    _pool("a | an | the | it | this | that | there | they | if | when | with | in | no | yes")
)
_OPENINGS = _pool(
    "That's a great question! | Great question, and one that comes up quite often. | "
    "Thanks for asking; this is a good one. | What an interesting question! | "
    "I'm glad you asked about this. | Happy to help with this one! | "
    "This is a really good question to think about. | Excellent question! | "
    "Sure, I'd be glad to explain. | Good question; let's take a careful look at it."
)
_QUESTION_FRAMES = _pool(
    'You asked: "{q}" | To restate the question: {q} | The question here is: {q} | '
    "Let me make sure I have the question right. {q} | So, the question is this: {q} | "
    'Just to be clear about what we are answering: "{q}"'
)
_ANSWER_INTROS = _pool(
    "Here is the short answer: | Let me start with the direct answer: | The answer, in brief: "
    "| Put directly, the answer is as follows: | First, the core answer: | "
    "Here is what it comes down to:"
)
_ELABORATION_INTROS = _pool(
    "Now let me go over that in a little more detail. | "
    "It helps to look at this from a few angles. | Let me unpack that a bit. | "
    "To make this completely clear, let me go through it again. | "
    "There is a bit more worth saying about this. | "
    "Let me walk through the main point once more."
)
# Frames for restating a prose sentence: the sentence follows a comma (and may be
# lower-cased), follows "that" (only for full clauses), or follows a colon (verbatim).
_COMMA_FRAMES = _pool(
    "In other words, | To put it another way, | Put differently, | Said another way, | "
    "Stated plainly, | Once again, | To repeat, | Simply put,"
)
_THAT_FRAMES = _pool(
    "The key point here is that | What matters most is that | It is worth stressing that | "
    "The essential idea is that | Remember that | The main takeaway is that"
)
_COLON_FRAMES = _pool(
    "Put simply: | To restate: | The short version: | Again, the point stands: | "
    "In plain terms: | Once more, for clarity: | Said differently:"
)
_FILLERS = _pool(
    "This is worth stating clearly, because it is the heart of the matter. | "
    "It is easy to overlook, so it bears repeating. | "
    "Keeping this in mind makes everything else fall into place. | "
    "That is really the whole idea. | It is a simple point, but an important one. | "
    "Many people find it helpful to have this spelled out. | "
    "There is no need to complicate it beyond that. | This is the part to remember. | "
    "It all follows from the same basic idea. | Looking at it this way keeps things clear. | "
    "Nothing more is needed to see why this is so. | It is good to be precise about this."
)
_CODE_FILLERS = _pool(
    "The code above is the complete solution as written. | "
    "Nothing needs to be added to the snippet above. | "
    "Everything the task asks for is in the code block above. | "
    "The snippet above can be used as it is. | The code above answers the question directly."
)
_CLOSINGS = _pool(
    "To sum up: {s} | In summary: {s} | To wrap up: {s} | So, to bring it all together: {s} | "
    "The bottom line: {s} | Putting it all together: {s}"
)
_SIGN_OFFS = _pool(
    "I hope this helps! | Let me know if you have any other questions. | "
    "Hope that clears things up! | Feel free to ask if anything is unclear. | "
    "Happy to go into more detail if you need it. | Thanks again for the question!"
)
_LIST_INTROS = _pool(
    "Here are the key points: | The answer, point by point: | "
    "Let me break this down into a list: | Here is everything in a numbered list: | "
    "The main points are: | Point by point:"
)
_LIST_FRAMES = _pool(
    "In other words, {s} | As point {i} says: {S} | Point {i}, restated: {S} | Again: {S} | "
    "To put point {i} another way, {s} | Put differently, {s} | Restating point {i}: {S} | "
    "This repeats point {i}: {S}"
)
_LIST_CODE_FRAMES = _pool(
    "The code in point {i} is the complete solution. | "
    "Point {i} already contains everything the task asks for. | "
    "As point {i} shows, the code can be used as it is. | "
    "The snippet in point {i} answers the question directly."
)


def word_count(text: str) -> int:
    """The number of words in ``text``: whitespace-separated tokens with a letter or digit.

    Bare punctuation (a dash, a fence's backticks) is not a word, so a padded answer's
    length is measured the way a reader would count it.
    """
    return sum(1 for token in text.split() if any(ch.isalnum() for ch in token))


def _is_code(segment: str) -> bool:
    return segment.lstrip(" ").startswith(("```", "~~~"))


def _boundary(paragraph: str, match: re.Match[str]) -> bool:
    """Whether the punctuation ``match`` ends a sentence, not an abbreviation or number."""
    start = match.start()
    token_start = max(paragraph.rfind(c, 0, start) for c in " \t\n") + 1
    token = paragraph[token_start : match.end()].lstrip("\"'“‘([")
    bare = token[: len(token) - len(match.group()) + 1].lower()  # the token and one "."
    if bare in _ABBREVIATIONS or re.fullmatch(r"[A-Z]\.", token):
        return False  # "e.g.", "Dr.", an initial such as "J."
    line_start = paragraph.rfind("\n", 0, token_start) + 1
    if token[:-1].isdigit() and not paragraph[line_start:token_start].strip():
        return False  # a numbered-list marker such as "2." at the start of a line
    rest = paragraph[match.end() :].lstrip()
    return not rest[:1].islower()  # "approx. five": an unknown abbreviation, not an end


def _prose_sentences(prose: str) -> Iterator[str]:
    for paragraph in _PARAGRAPH.split(prose):
        start = 0
        for match in _END.finditer(paragraph):
            if _boundary(paragraph, match):
                if sentence := paragraph[start : match.end()].strip():
                    yield sentence
                start = match.end()
        if tail := paragraph[start:].strip():
            yield tail


def split_sentences(text: str) -> list[str]:
    """Split ``text`` into sentences, each fenced code block kept whole as one item.

    Every item is a substring of ``text`` (stripped), so "each sentence appears in the
    padded answer" is a plain substring check. Full stops in numbers (``3.14``), common
    abbreviations (``e.g.``, ``i.e.``, ``Dr.``), initials and numbered-list markers do
    not end a sentence; a blank line always does.

    Example:
        >>> split_sentences("Use e.g. pi. It is 3.14 or so.")
        ['Use e.g. pi.', 'It is 3.14 or so.']
    """
    items: list[str] = []
    position = 0
    for fence in _FENCE.finditer(text):
        items.extend(_prose_sentences(text[position : fence.start()]))
        items.append(fence.group().strip("\n"))
        position = fence.end()
    items.extend(_prose_sentences(text[position:]))
    return items


def _rng(seed: int, question: str, answer: str) -> random.Random:
    """A generator seeded by ``seed`` and the texts, so each item gets its own choices."""
    digest = hashlib.sha256(f"{seed}\0{question}\0{answer}".encode()).digest()
    return random.Random(int.from_bytes(digest[:8], "big"))


def _deck(rng: random.Random, pool: Sequence[str]) -> Iterator[str]:
    """Draw from ``pool`` without replacement, reshuffling when it runs out.

    A phrase comes back only after every other one has been used, which is what keeps
    a 300-word padding from reading as one template repeated.
    """
    while True:
        order = list(pool)
        rng.shuffle(order)
        yield from order


def _lowerable(*texts: str) -> frozenset[str]:
    """Words safe to lower-case at a sentence start: common ones, and any the texts do."""
    return _LOWERABLE | frozenset(re.findall(r"\b[a-z][a-z'-]*", " ".join(texts)))


def _lower_first(sentence: str, lowerable: frozenset[str]) -> str | None:
    """The sentence with its first letter lower-cased, or None if that could mangle a name."""
    first = sentence.split(" ", 1)[0].rstrip(",:;")
    if not first[:1].isupper():
        return sentence
    if first[1:] == first[1:].lower() and first.lower() in lowerable:
        return sentence[0].lower() + sentence[1:]
    return None


def _body_and_end(sentence: str) -> tuple[str, str]:
    """The sentence without its final punctuation, and the punctuation to put back."""
    flat = " ".join(sentence.split())
    if flat[-1:] in ".!?":
        return flat.rstrip(".!?"), "." if flat.endswith(".") else flat[-1]
    return flat, "" if flat[-1:] in "\"'”’)]" else "."


def _restate(
    sentence: str, frames: Iterator[str], colons: Iterator[str], lowerable: frozenset[str]
) -> str:
    """One prose sentence in a neutral frame that adds no information.

    A "that" frame needs a clause of five words or more, and a comma or "that" frame a
    first word that can be lower-cased; otherwise a colon frame takes the sentence as is.
    """
    body, end = _body_and_end(sentence)
    frame = next(frames)
    lowered = _lower_first(body, lowerable)
    if frame.endswith(":") or lowered is None or (frame in _THAT_FRAMES and len(body.split()) < 5):
        return f"{frame if frame.endswith(':') else next(colons)} {body}{end}"
    return f"{frame} {lowered}{end}"


def _question_core(question: str) -> str:
    """The part of the question worth restating: its first prose paragraph, kept short.

    A summary task's question carries the whole passage; restating that would double
    the padding with text the judge has already seen, so only the instruction is used.
    """
    prose = _FENCE.split(question, maxsplit=1)[0]
    paragraphs = [p for p in _PARAGRAPH.split(prose) if p.strip()]
    if not paragraphs:
        return ""
    core = " ".join(paragraphs[0].split())
    if word_count(core) > 40:
        sentences = [s for s in _prose_sentences(core) if not _is_code(s)]
        asks = [s for s in sentences if s.endswith("?")]
        core = asks[-1] if asks else sentences[0]
    return core


def _elaborations(
    rng: random.Random, prose: list[str], has_code: bool, lowerable: frozenset[str]
) -> Iterator[str]:
    """An endless stream of restatements and fillers, none of which adds a fact."""
    frames = _deck(rng, _COMMA_FRAMES + _THAT_FRAMES + _COLON_FRAMES)
    colons = _deck(rng, _COLON_FRAMES)
    fillers = _deck(rng, _FILLERS)
    code_fillers = _deck(rng, _CODE_FILLERS)
    while True:
        for sentence in prose:
            yield _restate(sentence, frames, colons, lowerable)
            if rng.random() < 0.4:
                yield next(fillers)
        if has_code:
            yield next(code_fillers)
        if not prose or rng.random() < 0.5:
            yield next(fillers)


def pad_answer(question: str, answer: str, *, seed: int = 0, target_words: int = 300) -> str:
    """Pad ``answer`` to about ``target_words`` words without adding information.

    The result is a pleasantry, a restatement of the question, the concise answer
    verbatim as one block, restatements of its prose sentences mixed with
    content-free filler, and a closing summary that repeats the answer. Code blocks
    appear once, in the verbatim block, and are never restated.

    Args:
        question: The question the answer responds to (its first paragraph is restated).
        answer: The concise answer; it appears unchanged and contiguous in the result.
        seed: Picks the phrasings; the same seed gives the same padding.
        target_words: The length to grow to; the result lands within 15% of it unless
            the answer with its opening and closing is already longer.

    Returns:
        The padded answer, in Markdown paragraphs.
    """
    rng = _rng(seed, question, answer)
    block = answer.strip()
    items = split_sentences(block)
    prose = [s for s in items if not _is_code(s)]
    has_code = len(prose) < len(items)
    core = _question_core(question)
    head = rng.choice(_OPENINGS)
    if core:
        head += " " + rng.choice(_QUESTION_FRAMES).format(q=core)
    summary = " ".join(" ".join(prose).split()) or _CODE_FILLERS[0]
    tail = rng.choice(_CLOSINGS).format(s=summary) + " " + rng.choice(_SIGN_OFFS)
    parts = [head, rng.choice(_ANSWER_INTROS), block]
    total = sum(map(word_count, [*parts, tail]))
    upper = int(target_words * 1.15)
    if total < target_words:
        intro = rng.choice(_ELABORATION_INTROS)
        added = [intro]
        total += word_count(intro)
        stream = _elaborations(rng, prose, has_code, _lowerable(question, answer))
        fillers = _deck(rng, _FILLERS)
        while total < target_words:
            sentence = next(stream)
            if total + word_count(sentence) > upper:  # too long to fit: a short filler
                fitting = (next(fillers) for _ in _FILLERS)
                found = next((f for f in fitting if total + word_count(f) <= upper), None)
                if found is None:
                    break
                sentence = found
            added.append(sentence)
            total += word_count(sentence)
        while added:  # paragraphs of three to five sentences, as a chatty answer has
            size = rng.randint(3, 5)
            parts.append(" ".join(added[:size]))
            added = added[size:]
    parts.append(tail)
    return "\n\n".join(parts)


def repetitive_list(question: str, answer: str, *, seed: int = 0) -> str:
    """MT-Bench's "repetitive list" attack: the answer as a list, padded with repeats.

    Each sentence (and code block) of the answer becomes a numbered item, verbatim;
    then the list goes on with items that restate earlier items in other words, about
    twice as many as there are prose sentences, and at least three.

    Args:
        question: The question; it seeds the choices, so different items differ.
        answer: The concise answer; each of its sentences appears verbatim in the list.
        seed: Picks the phrasings; the same seed gives the same list.

    Returns:
        The list answer, in Markdown.
    """
    rng = _rng(seed, question, answer)
    items = split_sentences(answer.strip())
    lines = [rng.choice(_LIST_INTROS)]
    prose: list[tuple[int, str]] = []
    code: list[int] = []
    for number, item in enumerate(items, start=1):
        if _is_code(item):
            lines.append(f"{number}. The code:\n\n{item}")
            code.append(number)
        else:
            lines.append(f"{number}. {item}")
            prose.append((number, item))
    frames = _deck(rng, _LIST_FRAMES)
    verbatim_frames = _deck(rng, [f for f in _LIST_FRAMES if "{S}" in f])
    code_frames = _deck(rng, _LIST_CODE_FRAMES)
    lowerable = _lowerable(question, answer)
    sources = list(prose) or [(i, "") for i in code]
    if not sources:
        return lines[0]  # an empty answer has nothing to list
    for offset in range(max(3, 2 * len(prose))):
        if offset and offset % len(sources) == 0:
            rng.shuffle(sources)  # the first pass follows the list, later ones do not
        number, sentence = sources[offset % len(sources)]
        if not sentence:
            text = next(code_frames).format(i=number)
        else:
            body, end = _body_and_end(sentence)
            lowered = _lower_first(body, lowerable)
            frame = next(frames)
            if lowered is None and "{s}" in frame:
                frame = next(verbatim_frames)
            text = frame.format(i=number, s=f"{lowered}{end}", S=body + end)
        lines.append(f"{len(items) + offset + 1}. {text}")
    return "\n\n".join(lines) if code else "\n".join(lines)
