"""The whole Bradley-Terry bootstrap in one call, for tests that draw rounds directly.

``bradley_terry`` starts the draws before its full-data fit, so it opens
:class:`RoundDraws` itself; tests that already have a start use this.
"""

from __future__ import annotations

from typing import Literal

import numpy as np
import scipy.sparse as sp

from fairjudge.stats._bt_bootstrap import BootstrapDraws, PairData, RoundDraws, solve_rounds
from fairjudge.stats._validate import FloatArray


def bootstrap_thetas(
    data: PairData,
    *,
    cluster_cells: sp.csr_array | None,
    ties: Literal["half", "davidson"],
    l2: float,
    start: FloatArray,
    anchor: int,
    n_resamples: int,
    rng: np.random.Generator,
) -> BootstrapDraws:
    """Refit the model on ``n_resamples`` resamples: :class:`RoundDraws` then :func:`solve_rounds`.

    Args:
        data: The merged battles.
        cluster_cells: ``(Q, 3P)`` cell counts per question, or ``None`` to
            resample battles.
        ties: ``"half"`` or ``"davidson"``.
        l2: Ridge strength.
        start: Full-data fit used as the warm start: ``(n,)``, or ``(n + 1,)``
            with ``kappa`` last for Davidson.
        anchor: Index of the anchor model (for identification).
        n_resamples: Number of rounds.
        rng: Generator; rounds are drawn from it in order.

    Returns:
        The rounds' ratings.
    """
    with RoundDraws(
        data,
        cluster_cells=cluster_cells,
        anchor=anchor,
        check_mle=l2 == 0.0,
        n_resamples=n_resamples,
        rng=rng,
    ) as rounds:
        return solve_rounds(rounds, data, ties=ties, l2=l2, start=start)
