"""The top-level functions a notebook or script calls (``fairjudge.compare``, ...).

They sit above the report layer and beside the command line: each loads items,
resolves a judge, calls the library function its command calls, and returns a
:class:`Result` with the command's report model. :func:`judge_pairs` and
:func:`judge_panel` (and :func:`judge_via_scores`) are the runs themselves,
orchestrated once: the commands that read their own files (``compare``, ``calibrate``,
``jury``, ``compare --via-scores``) call them too. Every name
loads on first use (PEP 562), so a command loads only the run it makes.
"""

from typing import TYPE_CHECKING

from fairjudge._lazy import lazy_attributes

if TYPE_CHECKING:
    from fairjudge._api._audit import audit_judge
    from fairjudge._api._functions import calibrate, compare, score
    from fairjudge._api._rank import rank
    from fairjudge._api._result import Result
    from fairjudge._api._runs import judge_pairs, judge_panel, judge_via_scores

__all__ = [
    "Result", "audit_judge", "calibrate", "compare", "judge_pairs", "judge_panel",
    "judge_via_scores", "rank", "score",
]  # fmt: skip

# Where each name lives; the notebook's names report the flat namespace when loaded
# (``fairjudge.compare.__module__ == "fairjudge"``, httpx's convention).
_LAZY = {
    "audit_judge": "fairjudge._api._audit",
    "calibrate": "fairjudge._api._functions",
    "compare": "fairjudge._api._functions",
    "score": "fairjudge._api._functions",
    "rank": "fairjudge._api._rank",
    "Result": "fairjudge._api._result",
    "judge_pairs": "fairjudge._api._runs",
    "judge_panel": "fairjudge._api._runs",
    "judge_via_scores": "fairjudge._api._runs",
}
__getattr__ = lazy_attributes(__name__, _LAZY)
