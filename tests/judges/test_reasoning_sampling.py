"""score with an OpenAI reasoning model and ``--temperature 1``: no temperature is sent.

1 is the temperature such a model samples at, so ``--temperature 1`` runs (a script
passing it to every judge works), and pairwise judges sent none: o1-mini and o3-mini
refuse the field even at 1, and gpt-5.1 and later refuse it at any effort but none.
The pointwise judge sent it, and every call in flight was refused once (16 refused
requests in one ``score`` run) before the backend learned to drop it.
"""

from __future__ import annotations

from pathlib import Path

import pytest

from fairjudge import ScoreItem
from fairjudge.evaluation import score_answers
from fairjudge.judges import BackendOptions, resolve_judge, resolve_pointwise_judge
from tests.server import Pair
from tests.server._openai_emulator import EmulatorServer

SCORES = '{"accuracy": 4, "relevance": 5, "usefulness": 3, "reason": "clear enough"}'
ITEMS = [ScoreItem(f"What is 2 + {i}?", f"It is {2 + i}.") for i in range(12)]


@pytest.mark.parametrize(
    ("model", "effort"),
    [("o3-mini", None), ("o1-mini", None), ("gpt-5-mini", None), ("gpt-5.2", "low")],
)
def test_score_sends_no_temperature_1_to_a_reasoning_model(
    openai_emulator: EmulatorServer,
    monkeypatch: pytest.MonkeyPatch,
    tmp_path: Path,
    model: str,
    effort: str | None,
) -> None:
    monkeypatch.setattr("tests.server._app.extract_pair", lambda prompt: Pair(prompt, "", ""))
    openai_emulator.configure(judge=lambda pair: SCORES, reply_format="{verdict}")
    where = BackendOptions(
        base_url=openai_emulator.base_url, temperature=1, reasoning_effort=effort
    )
    store = tmp_path / "s.sqlite"
    with resolve_pointwise_judge(f"openai/{model}", backend_options=where, store=store) as judge:
        assert "temperature" not in judge.params
        result = score_answers(judge, ITEMS, n_resamples=50)
    assert result.n_call_errors == result.n_parse_failures == 0
    assert openai_emulator.count("ok") == len(ITEMS)
    assert openai_emulator.count("refused") == 0
    # The pairwise judge, as before: the same parameters.
    with resolve_judge(f"openai/{model}", backend_options=where, store=store) as pairwise:
        assert "temperature" not in pairwise.params  # type: ignore[attr-defined]


def test_score_sends_temperature_1_where_it_is_taken(
    openai_emulator: EmulatorServer, tmp_path: Path
) -> None:
    """gpt-5.1 and later at none (their default) take a temperature: 1 is sent as given,
    as for a chat model."""
    where = BackendOptions(base_url=openai_emulator.base_url, temperature=1)
    for spec in ("openai/gpt-5.2", "openai/gpt-4o-mini"):
        with resolve_pointwise_judge(spec, backend_options=where, store=tmp_path / "s") as judge:
            assert judge.params["temperature"] == 1
