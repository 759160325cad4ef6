"""Two labellers' rubric scores of the same answers, merged, with their agreement.

The pointwise sibling of :mod:`._label_merge`. Before a pointwise judge is checked
against human scores (``fairjudge calibrate --rubric``, gated on Spearman), the
scores themselves are checked: a judge cannot be expected to track a person's
scores better than a second person does.

Per dimension of the rubric, over the answers both labellers scored on it:

- Krippendorff's alpha, ordinal metric (chance-corrected agreement that credits a
  near miss on a rubric's levels, as a weighted kappa does), and Spearman and
  Kendall (do they order the answers alike, whatever each one's leniency), each
  with a percentile bootstrap interval clustered by question (several answers to
  one question are not independent evidence);
- exact agreement, agreement within ``tolerance``, and the mean difference A - B
  (one labeller systematically harsher shows here, not in a rank correlation).

The merged ``human_<dimension>`` holds the agreed score: both scores when equal,
their mean when they differ by at most ``tolerance`` (0 by default: equal scores
only), and nothing otherwise. ``<dimension>_a`` and ``<dimension>_b`` keep each
labeller's score and ``<dimension>_agree`` whether they agree, so no score is lost
and every disagreement waits in the file for a third person
(``fairjudge label merged.jsonl --rubric R`` opens at the first answer with a
dimension unsettled).
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from fairjudge._errors import ConfigError, InputError
from fairjudge._items import ScoreItem
from fairjudge.audit._calibration import MIN_SPEARMAN
from fairjudge.audit._label_merge import check_bootstrap, check_merge_paths, row_keys
from fairjudge.io import ScoreSheet, read_sheet_rows, write_rows_durably
from fairjudge.prompts import DEFAULT_RUBRIC, Rubric, get_rubric
from fairjudge.stats import (
    CorrelationResult,
    KrippendorffAlpha,
    krippendorff_alpha_ci,
    score_correlation,
)

__all__ = [
    "DimensionLabelAgreement",
    "ScoreDisagreement",
    "ScoreLabelMerge",
    "merge_score_labels",
]

HUMAN = "human_"
"""The prefix of a human score's column, as :func:`~fairjudge.io.load_score_items` reads."""

SUFFIXES = ("_a", "_b", "_agree")
"""``<dimension>_a``, ``<dimension>_b``: each labeller's score; ``<dimension>_agree``."""


@dataclass(frozen=True, slots=True)
class ScoreDisagreement:
    """One answer's dimension the two labellers scored further apart than the tolerance."""

    id: str
    system: str | None
    line: int
    dimension: str
    a: float
    b: float

    def to_dict(self) -> dict[str, Any]:
        """JSON-ready form."""
        return {"id": self.id, "system": self.system, "line": self.line,
                "dimension": self.dimension, "a": self.a, "b": self.b}  # fmt: skip


@dataclass(frozen=True, slots=True)
class DimensionLabelAgreement:
    """How well the two labellers agree on one dimension.

    Attributes:
        dimension: The rubric's dimension.
        both: Answers both scored on it.
        only_one: Answers only one of them scored on it.
        agreed: Answers scored within the tolerance (their merged score is set).
        exact: Answers given the same score.
        mean_difference: Mean of A's score minus B's; ``None`` when ``both`` is 0.
        alpha: Krippendorff's alpha (ordinal) with its interval, or ``None`` (see
            ``skipped``).
        correlation: Spearman and Kendall of A's scores against B's, with their
            intervals, or ``None`` (see ``skipped``).
        skipped: Figure -> why it was left out.
    """

    dimension: str
    both: int
    only_one: int
    agreed: int
    exact: int
    mean_difference: float | None
    alpha: KrippendorffAlpha | None
    correlation: CorrelationResult | None
    skipped: dict[str, str]

    def lines(self, tolerance: float) -> list[str]:
        """The summary's lines for this dimension."""
        agreed = f"{self.agreed} agree"
        if tolerance:
            agreed = f"{self.agreed} within {_shown(tolerance)} ({self.exact} the same score)"
        difference = self.mean_difference
        lines = [
            f"{self.dimension}: {self.both} scored by both, {agreed}, "
            f"{self.both - self.agreed} disagree, {self.only_one} scored by one only"
            + ("" if difference is None else f"; mean A - B {difference:+.2f}")
        ]
        if self.alpha is not None:
            lines.append(f"  Krippendorff's alpha (ordinal) {self.alpha.alpha:.3f} {self.alpha.ci}")
        if self.correlation is not None:
            lines += self.correlation.correlation_lines()
            if self.correlation.spearman < MIN_SPEARMAN:
                lines.append(
                    f"  note: Spearman is below {MIN_SPEARMAN}, what calibrate asks of a judge "
                    "by default: a judge is unlikely to clear that against these scores"
                )
        lines += [f"  {name}: n/a ({why})" for name, why in self.skipped.items()]
        return lines

    def to_dict(self) -> dict[str, Any]:
        """JSON-ready form (the correlation without calibrate's gate, which is not this)."""
        correlation = None
        if self.correlation is not None:
            correlation = {**self.correlation.correlation_dict(), "n": self.correlation.n}
        return {
            "dimension": self.dimension, "both": self.both, "only_one": self.only_one,
            "agreed": self.agreed, "exact": self.exact,
            "mean_difference": self.mean_difference,
            "alpha": None if self.alpha is None else self.alpha.to_dict(),
            "correlation": correlation, "skipped": dict(self.skipped),
        }  # fmt: skip


@dataclass(frozen=True, slots=True)
class ScoreLabelMerge:
    """What merging two labellers' score sheets found.

    Attributes:
        a: The first labeller's file.
        b: The second labeller's file.
        out: The merged file.
        rubric: The rubric's name and version (``name@version``).
        scale: Its lowest and highest score.
        tolerance: The largest difference still counted as agreement.
        items: Answers in each file.
        dimensions: One entry per dimension either labeller scored, in the rubric's order.
        disagreements: Each (answer, dimension) scored further apart than
            ``tolerance``, in file order.
        seed: The bootstrap's seed.
        level: The intervals' coverage.
        n_resamples: The bootstrap's resamples.
    """

    a: str
    b: str
    out: str
    rubric: str
    scale: tuple[int, int]
    tolerance: float
    items: int
    dimensions: tuple[DimensionLabelAgreement, ...]
    disagreements: tuple[ScoreDisagreement, ...]
    seed: int
    level: float
    n_resamples: int

    def summary(self) -> str:
        """Per dimension: the counts, alpha and the correlations; then each disagreement."""
        lines = [
            f"{self.items} answers scored on rubric {self.rubric} "
            f"({self.scale[0]}-{self.scale[1]}); agreement: "
            + (f"within {_shown(self.tolerance)}" if self.tolerance else "the same score")
            + f"; intervals {self.level:.0%}, {self.n_resamples} resamples, seed {self.seed}"
        ]
        if not self.dimensions:
            lines.append("no dimension was scored in either file")
        for dim in self.dimensions:
            lines += dim.lines(self.tolerance)
        for d in self.disagreements:
            system = "" if d.system is None else f" ({d.system})"
            lines.append(f"  disagree: id {d.id}{system} (line {d.line}) {d.dimension}: "
                         f"A {_shown(d.a)}, B {_shown(d.b)}")  # fmt: skip
        return "\n".join(lines)

    def to_dict(self) -> dict[str, Any]:
        """JSON-ready form."""
        return {
            "input": "pointwise", "a": self.a, "b": self.b, "out": self.out,
            "rubric": self.rubric, "scale": list(self.scale), "tolerance": self.tolerance,
            "items": self.items, "dimensions": [d.to_dict() for d in self.dimensions],
            "disagreements": [d.to_dict() for d in self.disagreements],
            "seed": self.seed, "level": self.level, "n_resamples": self.n_resamples,
        }  # fmt: skip


def _shown(score: float) -> str:
    """A score as a person wrote it: ``4``, not ``4.0``; ``3.5`` stays."""
    return str(int(score)) if float(score).is_integer() else str(score)


def _cell(score: float | None) -> float | int | None:
    return None if score is None else int(score) if float(score).is_integer() else score


def _rubric(rubric: str | Rubric | None) -> Rubric:
    return rubric if isinstance(rubric, Rubric) else get_rubric(rubric or DEFAULT_RUBRIC)


def _check_tolerance(tolerance: float, rubric: Rubric) -> float:
    """``tolerance`` as a float: a number of score points from 0 to less than the scale."""
    low, high = rubric.scale
    if isinstance(tolerance, bool) or not isinstance(tolerance, int | float) or tolerance < 0:
        raise ConfigError(
            f"tolerance must be a number >= 0 (score points); got {tolerance!r}",
            params=("tolerance",),
        )
    if not math.isfinite(tolerance):  # inf >= 0 holds: say what is wrong with it
        raise ConfigError(
            f"tolerance must be a finite number of score points, from 0 up to less than "
            f"{high - low} (rubric {rubric.name}'s scale {low}-{high}); got {tolerance!r}",
            params=("tolerance",),
        )
    if tolerance >= high - low:
        raise ConfigError(
            f"tolerance={_shown(tolerance)} spans rubric {rubric.name}'s whole scale "
            f"{low}-{high}: every pair of scores would agree; give 0 (equal scores only) up "
            f"to less than {high - low}",
            params=("tolerance",),
        )
    return float(tolerance)


def _key(item: ScoreItem) -> tuple[str, str | None]:
    return str(item.id), item.system


def _same_answers(
    a: Path, b: Path, rubric: Rubric
) -> tuple[list[ScoreItem], list[ScoreItem], list[int]]:
    """Both files' answers in A's order, and A's lines; refused unless they hold the same."""
    read = [read_sheet_rows(path) for path in (a, b)]
    loaded = [  # as a sheet: a column of another rubric said once, no skip_invalid offered
        ScoreSheet.read_items(path, dimensions=rubric.names, scale=rubric.scale, rows=rows)
        for path, rows in zip((a, b), read, strict=True)
    ]
    lines = [rows.lines for rows in read]
    by_b = {_key(item): k for k, item in enumerate(loaded[1])}
    keys_a = {_key(item) for item in loaded[0]}
    for key, k in by_b.items():
        if key not in keys_a:
            raise InputError(f"{_named(key)} is not in {a}: both files must hold the same "
                             "answers", path=str(b), line=lines[1][k])  # fmt: skip
    items_b = []
    for k, item in enumerate(loaded[0]):
        key = _key(item)
        if key not in by_b:
            raise InputError(f"{_named(key)} is not in {b}: both files must hold the same "
                             "answers", path=str(a), line=lines[0][k])  # fmt: skip
        other = loaded[1][by_b[key]]
        for field in ("question", "answer"):
            if getattr(item, field) != getattr(other, field):
                raise InputError(
                    f"{_named(key)}: {field} differs from line {lines[0][k]} of {a}; merge "
                    "files of the same answers only", path=str(b), line=lines[1][by_b[key]],
                )  # fmt: skip
        items_b.append(other)
    return loaded[0], items_b, lines[0]


def _named(key: tuple[str, str | None]) -> str:
    return f"id {key[0]!r}" + ("" if key[1] is None else f" of system {key[1]!r}")


def _scored(items: Sequence[ScoreItem], rubric: Rubric) -> list[str]:
    return [d for d in rubric.names if any(d in it.human for it in items)]


def _dimensions(
    a: Path, items_a: list[ScoreItem], b: Path, items_b: list[ScoreItem], rubric: Rubric
) -> list[str]:
    """The dimensions either labeller scored; refused when both scored, on different ones.

    A file with no score at all is a labeller who has not started, and merges (every
    score is then "scored by one only"). Two files that both hold scores, but not on
    the same dimensions, were scored against different rubrics (or one labeller
    skipped a dimension everywhere): their merge would compare nothing there.

    Raises:
        InputError: A dimension one file scored on some answer and the other on none.
    """
    dims_a, dims_b = _scored(items_a, rubric), _scored(items_b, rubric)
    if dims_a and dims_b and dims_a != dims_b:
        dim = next(d for d in rubric.names if (d in dims_a) != (d in dims_b))
        has, lacks, items = (a, b, items_a) if dim in dims_a else (b, a, items_b)
        scores = dims_b if has == a else dims_a
        raise InputError(
            f"{has} scores dimension {dim!r} on {sum(dim in it.human for it in items)} "
            f"answer(s), {lacks} on none (it scores {', '.join(scores)}): the two were "
            "scored on different dimensions. Score the same rubric's dimensions in both "
            f"files (fairjudge label FILE with the same rubric), or merge once both have "
            f"scored {dim!r}",
            params=("rubric",),
        )
    return [d for d in rubric.names if d in dims_a or d in dims_b]


def _check_free(a: Path, names: list[str], dims: list[str]) -> None:
    """Refuse a file that already has a column the merge writes (a merged file, merged again)."""
    taken = [d + s for d in dims for s in SUFFIXES if d + s in names]
    if taken:
        raise InputError(
            f"the file already has column {taken[0]!r}, which the merge writes (is it a merged "
            "file?); merge the two labellers' own files, or rename that column",
            path=str(a),
        )


def _agreement(
    dim: str, pairs: list[tuple[float, float, str]], only_one: int, tolerance: float,
    boot: dict[str, Any],
) -> DimensionLabelAgreement:  # fmt: skip
    """One dimension's figures over the answers both scored: ``(a, b, question)``."""
    skipped: dict[str, str] = {}
    alpha: KrippendorffAlpha | None = None
    correlation: CorrelationResult | None = None
    xs, ys, questions = [p[0] for p in pairs], [p[1] for p in pairs], [p[2] for p in pairs]
    if not pairs:
        skipped["agreement"] = "no answer was scored by both on this dimension"
    else:
        alpha = krippendorff_alpha_ci([[x, y] for x, y in zip(xs, ys, strict=True)],
                                      "ordinal", questions=questions, **boot)  # fmt: skip
        if math.isnan(alpha.alpha):
            skipped["alpha"] = "every score is the same, so no disagreement is expected by chance"
            alpha = None
    if 0 < len(pairs) < 3:
        skipped["correlation"] = f"{len(pairs)} answer(s) scored by both; it needs at least 3"
    elif pairs and (len(set(xs)) < 2 or len(set(ys)) < 2):
        side = "A" if len(set(xs)) < 2 else "B"
        skipped["correlation"] = f"labeller {side}'s scores are all equal: no rank correlation"
    elif pairs:
        correlation = score_correlation(xs, ys, questions=questions, **boot)
    return DimensionLabelAgreement(
        dimension=dim, both=len(pairs), only_one=only_one,
        agreed=sum(abs(x - y) <= tolerance for x, y in zip(xs, ys, strict=True)),
        exact=sum(x == y for x, y in zip(xs, ys, strict=True)),
        mean_difference=sum(xs) / len(xs) - sum(ys) / len(ys) if pairs else None,
        alpha=alpha, correlation=correlation, skipped=skipped,
    )  # fmt: skip


def merge_score_labels(
    a: str | Path, b: str | Path, out: str | Path, *, rubric: str | Rubric | None = None,
    tolerance: float = 0, seed: int = 0, n_resamples: int = 2000, level: float = 0.95,
) -> ScoreLabelMerge:  # fmt: skip
    """Merge two labellers' rubric scores of the same answers into ``out``, with agreement.

    Args:
        a: The first labeller's JSONL or CSV file of single answers (``question``,
            ``answer``; ``id``, ``system`` optional) with ``human_<dimension>`` scores,
            as ``fairjudge label FILE --rubric R`` writes.
        b: The second's, of the same answers (matched by ``id`` and ``system``, or line).
        out: Where the merged file goes (JSONL, or CSV by its extension): A's rows,
            with ``human_<dimension>`` the agreed score (empty where they disagree or
            only one scored), ``<dimension>_a``/``<dimension>_b`` each labeller's and
            ``<dimension>_agree``.
        rubric: The rubric both scored against (a name, a ``.toml`` path or a
            :class:`~fairjudge.prompts.Rubric`); its dimensions and scale are
            checked. Default: ``fairjudge label``'s, ``production``.
        tolerance: Scores at most this far apart agree, and merge to their mean
            (0: equal scores only).
        seed: The seed of the bootstrap intervals.
        n_resamples: Their resamples.
        level: Their coverage.

    Returns:
        Per dimension the counts and agreement figures, and every disagreement.

    Raises:
        InputError: A file cannot be read, holds pairs, other answers, a score off
            the rubric's scale or a ``human_`` column of another rubric (naming the
            file and line); the files scored different dimensions.
        ConfigError: An unknown rubric, a bad tolerance or bootstrap option; ``out``
            is an input or cannot be written.

    Example:
        >>> merged = merge_score_labels("alice.jsonl", "bob.jsonl", "m.jsonl")  # doctest: +SKIP
        >>> print(merged.summary())  # doctest: +SKIP
    """
    check_bootstrap(seed, n_resamples, level)  # even where no dimension has scores
    boot: dict[str, Any] = {"seed": seed, "n_resamples": n_resamples, "level": level}
    a, b, out = Path(a), Path(b), Path(out)
    check_merge_paths(a, b, out, pointwise=True)
    chosen = _rubric(rubric)
    tol = _check_tolerance(tolerance, chosen)
    items_a, items_b, lines = _same_answers(a, b, chosen)
    dims = _dimensions(a, items_a, b, items_b, chosen)
    sheet = read_sheet_rows(a)
    names = sheet.header or row_keys(sheet.rows)
    _check_free(a, names, dims)
    sheet_b = read_sheet_rows(b)
    _check_free(b, sheet_b.header or row_keys(sheet_b.rows), dims)
    disagreements: list[ScoreDisagreement] = []
    figures = []
    for dim in dims:
        pairs: list[tuple[float, float, str]] = []
        only_one = 0
        for row, line, x, y in zip(sheet.rows, lines, items_a, items_b, strict=True):
            sa, sb = x.human.get(dim), y.human.get(dim)
            agree = None if sa is None or sb is None else abs(sa - sb) <= tol
            merged = (sa + sb) / 2 if agree and sa is not None and sb is not None else None
            row.update({HUMAN + dim: _cell(merged), dim + "_a": _cell(sa),
                        dim + "_b": _cell(sb), dim + "_agree": agree})  # fmt: skip
            only_one += (sa is None) != (sb is None)
            if sa is not None and sb is not None:
                pairs.append((sa, sb, x.cluster_key))
                if not agree:
                    disagreements.append(ScoreDisagreement(str(x.id), x.system, line, dim, sa, sb))
        figures.append(_agreement(dim, pairs, only_one, tol, dict(boot)))
    header = None
    if sheet.header is not None or out.suffix.lower() == ".csv":
        added = [HUMAN + d if not s else d + s for d in dims for s in ("", *SUFFIXES)]
        header = list(names) + [c for c in added if c not in names]
    write_rows_durably(out, sheet.rows, header)
    disagreements.sort(key=lambda d: (d.line, dims.index(d.dimension)))
    return ScoreLabelMerge(
        a=str(a), b=str(b), out=str(out), rubric=f"{chosen.name}@{chosen.version}",
        scale=chosen.scale, tolerance=tol, items=len(items_a), dimensions=tuple(figures),
        disagreements=tuple(disagreements), seed=seed, level=level, n_resamples=n_resamples,
    )  # fmt: skip
