"""The top-level functions a notebook or script calls (``fairjudge.compare``, ...).

They sit above the report layer and beside the command line: each loads items,
resolves a judge, calls the library function its command calls, and returns a
:class:`Result` with the command's report model.
"""

from fairjudge._api._audit import audit_judge
from fairjudge._api._functions import calibrate, compare, score
from fairjudge._api._rank import rank
from fairjudge._api._result import Result

__all__ = ["Result", "audit_judge", "calibrate", "compare", "rank", "score"]

for _name in __all__:  # httpx's convention: every public name reports the flat namespace
    globals()[_name].__module__ = "fairjudge"
