"""Two labellers' files of the same items, merged, with their agreement.

A judge cannot be expected to agree with a human better than humans agree with each
other, so the labels are checked first; every disagreement stays in the merged file.
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path
from typing import Any

from fairjudge._errors import ConfigError, InputError
from fairjudge._types import Outcome
from fairjudge.io import (
    Columns,
    LabelSheet,
    check_writable,
    is_pointwise_file,
    read_sheet_rows,
    write_rows_durably,
)
from fairjudge.stats import AgreementResult, judge_agreement, plan_bootstrap

__all__ = [
    "Disagreement",
    "LabelMerge",
    "check_bootstrap",
    "check_merge_paths",
    "merge_labels",
    "row_keys",
]

LABEL_A, LABEL_B, AGREE = "label_a", "label_b", "labels_agree"
"""The merged file's columns for each labeller's label, and whether they agree."""


@dataclass(frozen=True, slots=True)
class Disagreement:
    """One item the two labellers labelled differently."""

    id: str
    line: int
    a: str
    b: str

    def to_dict(self) -> dict[str, Any]:
        """JSON-ready form."""
        return {"id": self.id, "line": self.line, "a": self.a, "b": self.b}


@dataclass(frozen=True, slots=True)
class LabelMerge:
    """What merging two labellers' files found.

    Attributes:
        a: The first labeller's file.
        b: The second labeller's file.
        out: The merged file.
        items: Items in each file.
        both: Items both labelled.
        agreed: Items both gave the same label (the merged ``human`` column).
        only_one: Items only one labeller labelled.
        disagreements: Each item labelled differently, in file order.
        agreement: Kappa and the agreement rates over the items both labelled
            (labeller A as rows); ``None`` when no item was labelled by both.
    """

    a: str
    b: str
    out: str
    items: int
    both: int
    agreed: int
    only_one: int
    disagreements: tuple[Disagreement, ...]
    agreement: AgreementResult | None

    def summary(self) -> str:
        """The counts, kappa with its interval, and each disagreement."""
        lines = [
            f"{self.items} items; {self.both} labelled by both, {self.agreed} agree, "
            f"{len(self.disagreements)} disagree, {self.only_one} labelled by one only",
        ]
        if self.agreement is None:
            lines.append("Cohen's kappa: n/a (no item was labelled by both)")
        else:
            r = self.agreement
            lines.append(f"Cohen's kappa {r.kappa_text()} (A rows, B columns)")
            lines.append(str(r.confusion).replace("human\\judge", "    A\\B    "))
        lines += [f"  disagree: id {d.id} (line {d.line}): A {d.a}, B {d.b}"
                  for d in self.disagreements]  # fmt: skip
        return "\n".join(lines)

    def to_dict(self) -> dict[str, Any]:
        """JSON-ready form (the confusion matrix's rows are A, its columns B)."""
        agreement = None if self.agreement is None else self.agreement.to_dict()
        if agreement is not None:
            agreement["confusion"].update(rows="a", columns="b")
        return {
            "input": "pairwise", "a": self.a, "b": self.b, "out": self.out,
            "items": self.items,
            "both": self.both, "agreed": self.agreed, "only_one": self.only_one,
            "disagreements": [d.to_dict() for d in self.disagreements],
            "agreement": agreement,
        }  # fmt: skip


def check_merge_paths(a: Path, b: Path, out: Path, *, pointwise: bool) -> None:
    """Refuse a merge that measures nothing, mixes kinds, or would overwrite a labeller's file.

    ``pointwise`` says which merge was called: pairs (``human`` labels) or single
    answers scored on a rubric (``human_<dimension>``); each file's columns must say
    the same (:func:`~fairjudge.io.is_pointwise_file`).

    Raises:
        InputError: ``a`` and ``b`` are one file, a file cannot be read, or a file
            holds the other kind of labels.
        ConfigError: ``out`` cannot be written, or must not be: one of the inputs, a
            store, a folder (:func:`~fairjudge.io.check_writable`).
    """
    if a.resolve() == b.resolve():  # one labeller agreeing with themself measures nothing
        raise InputError(f"{a} and {b} are the same file; give the two labellers' files")
    check_writable(out, "out", inputs=(a, b))  # not a labeller's file, a store, a folder
    for path in (a, b):
        read_sheet_rows(path)  # an unreadable file is named as such, not as the other kind
    kinds = [is_pointwise_file(path) for path in (a, b)]
    if kinds[0] != kinds[1]:
        scores, pairs = (a, b) if kinds[0] else (b, a)
        raise InputError(
            f"{scores} holds single answers scored on a rubric (an 'answer' column), {pairs} "
            "holds pairs (answer_1/answer_2): a merge takes two labellers' files of the same "
            "items; give two score sheets or two pair files"
        )
    if kinds[0] != pointwise:
        raise InputError(
            f"{a} and {b} hold single answers scored on a rubric (an 'answer' column, "
            "human_<dimension> scores): merge them with merge_score_labels "
            "(fairjudge label-merge does this by itself)"
            if kinds[0]
            else f"{a} and {b} hold pairs (answer_1/answer_2): merge them with merge_labels"
        )


def check_bootstrap(seed: int, n_resamples: int, level: float) -> None:
    """Refuse a bad bootstrap option now, before the merged file is written, naming it.

    Raises:
        ConfigError: A bad ``seed``, ``n_resamples`` or ``level``; its ``params`` name
            all three, so the command line words whichever the message names as its flag.
    """
    try:
        plan_bootstrap(2, {"seed": seed, "n_resamples": n_resamples, "level": level})
    except ConfigError as exc:
        raise ConfigError(str(exc), params=("seed", "n_resamples", "level")) from None


def _labels(path: Path, cols: Columns) -> tuple[dict[str, tuple[int, Any]], list[str]]:
    """Each id's (index, item) in a file, and its ids in order."""
    items = LabelSheet.read_items(path, columns=cols)  # as a sheet: no skip_invalid offered
    return {str(it.id): (i, it) for i, it in enumerate(items)}, [str(it.id) for it in items]


def _check_same(a: Path, b: Path, cols: Columns) -> tuple[list[Any], list[Any], list[int]]:
    """Both files' items in A's order, and A's lines; refused unless they hold the same."""
    by_a, order = _labels(a, cols)
    by_b, _ = _labels(b, cols)
    lines = read_sheet_rows(a).lines
    b_lines = read_sheet_rows(b).lines
    for key in by_b.keys() - by_a.keys():
        raise InputError(f"id {key!r} is not in {a}: both files must hold the same items",
                         path=str(b), line=b_lines[by_b[key][0]])  # fmt: skip
    items_a, items_b = [], []
    for key in order:
        index, item = by_a[key]
        if key not in by_b:
            raise InputError(f"id {key!r} is not in {b}: both files must hold the same items",
                             path=str(a), line=lines[index])  # fmt: skip
        other_index, other = by_b[key]
        for field in ("question", "answer_1", "answer_2"):
            if getattr(item, field) != getattr(other, field):
                raise InputError(
                    f"id {key!r}: {field} differs from line {lines[index]} of {a}; "
                    "merge files of the same items only", path=str(b),
                    line=b_lines[other_index],
                )  # fmt: skip
        items_a.append(item)
        items_b.append(other)
    return items_a, items_b, lines


def _check_label_column(human: str, a: Path, names_a: list[str], b: Path) -> None:
    """Refuse a label column named by ``columns`` that neither file has.

    Both files' labels would read as none: the merge said 0 labelled by both and
    kappa n/a, exit 0. One file without it is a labeller who labelled nothing yet,
    and the default ``human`` column is never named by mistake.

    Raises:
        InputError: ``human`` is not ``"human"`` and neither file has it.
    """
    if human == "human" or human in names_a:
        return
    sheet_b = read_sheet_rows(b)
    if human in (sheet_b.header or row_keys(sheet_b.rows)):
        return
    raise InputError(
        f"no column {human!r} (columns.human) in {a} or {b}; {a}'s columns: "
        f"{', '.join(repr(n) for n in names_a)}; name the column holding the labels",
        params="columns.human",
    )


def _stored(label: Outcome | None) -> str | None:
    return None if label is None else label.value


def merge_labels(
    a: str | Path, b: str | Path, out: str | Path, *, columns: Columns | None = None,
    seed: int = 0, n_resamples: int = 2000, level: float = 0.95,
) -> LabelMerge:  # fmt: skip
    """Merge two labellers' files of the same items into ``out``, with their agreement.

    Args:
        a: The first labeller's JSONL or CSV file.
        b: The second's, of the same items.
        out: Where the merged file goes (JSONL, or CSV by its extension); A's rows,
            with ``human`` (the agreed label), ``label_a``, ``label_b`` and
            ``labels_agree``.
        columns: Other column names, as for :func:`~fairjudge.io.load_items`.
        seed: The seed of kappa's bootstrap interval.
        n_resamples: Its resamples.
        level: Its coverage.

    Returns:
        The counts, every disagreement and the agreement figures.

    Raises:
        ConfigError: ``n_resamples`` is not an integer >= 1, or a bad ``seed`` or
            ``level`` (before any file is read); ``out`` is an input, or cannot be
            written.
        InputError: A file cannot be read, or the two hold different items (naming
            the file and line); they hold rubric scores (:func:`merge_score_labels`
            merges those).
    """
    a, b, out = Path(a), Path(b), Path(out)
    check_bootstrap(seed, n_resamples, level)  # now: by the agreement's, the file is written
    check_merge_paths(a, b, out, pointwise=False)
    cols = columns or Columns()
    items_a, items_b, lines = _check_same(a, b, cols)
    sheet = read_sheet_rows(a)
    _check_label_column(cols.human, a, sheet.header or row_keys(sheet.rows), b)
    both_a: list[str] = []
    both_b: list[str] = []
    disagreements: list[Disagreement] = []
    for row, line, x, y in zip(sheet.rows, lines, items_a, items_b, strict=True):
        la, lb = _stored(x.human), _stored(y.human)
        agree = None if la is None or lb is None else la == lb
        row.update({cols.human: la if agree else None, LABEL_A: la, LABEL_B: lb, AGREE: agree})
        if agree is not None:
            both_a.append(str(la))
            both_b.append(str(lb))
        if agree is False:
            disagreements.append(Disagreement(str(x.id), line, str(la), str(lb)))
    header = None
    if sheet.header is not None or out.suffix.lower() == ".csv":
        names = list(sheet.header or row_keys(sheet.rows))
        header = names + [c for c in (cols.human, LABEL_A, LABEL_B, AGREE) if c not in names]
    write_rows_durably(out, sheet.rows, header)
    agreement = (
        judge_agreement(both_b, both_a, seed=seed, n_resamples=n_resamples, level=level)
        if both_a
        else None
    )
    one_only = sum(
        (x.human is None) != (y.human is None) for x, y in zip(items_a, items_b, strict=True)
    )
    return LabelMerge(
        a=str(a), b=str(b), out=str(out), items=len(items_a), both=len(both_a),
        agreed=len(both_a) - len(disagreements), disagreements=tuple(disagreements),
        only_one=one_only,
        agreement=agreement,
    )  # fmt: skip


def row_keys(rows: list[dict[str, Any]]) -> list[str]:
    """Every key of JSON rows, in first-seen order (a CSV header for JSONL input)."""
    seen: dict[str, None] = {}
    for row in rows:
        seen.update(dict.fromkeys(row))
    return list(seen)
