"""``inspect score --scorer fairjudge/pairwise_scorer``: an existing log re-scored by fairjudge.

Inspect finds the scorer by name through fairjudge's ``inspect_ai`` entry point, which
an install writes (``pip install -e .``): where the installed metadata predates it, the
test skips and says so. The judge is a model provider registered with Inspect's
``@modelapi`` in a ``sitecustomize`` module, so the command line can name it
(``--model-role grader=scripted/judge``) and it answers with no network.
"""

from __future__ import annotations

import os
import subprocess
from importlib.metadata import entry_points
from pathlib import Path

import pytest

pytest.importorskip(
    "inspect_ai", reason="needs the inspect extra: pip install 'fairjudge[inspect]'"
)

from inspect_ai import Task
from inspect_ai import eval as inspect_eval
from inspect_ai.dataset import Sample
from inspect_ai.log import read_eval_log
from inspect_ai.model import get_model
from inspect_ai.scorer import match
from inspect_ai.solver import generate

from tests.integrations.quiet import QUIET
from tests.integrations.scripted import answering
from tests.integrations.test_cli import ROOT, inspect_command

pytestmark = QUIET

PROVIDER = """
from inspect_ai.model import ModelAPI, modelapi

@modelapi(name="scripted")
def scripted():
    from tests.integrations.scripted import PairJudge

    judge = PairJudge()

    class Scripted(ModelAPI):
        async def generate(self, input, tools, tool_choice, config):
            return judge(input)

    return Scripted
"""

OUTPUTS = {"Capital of France?": "Paris, on the Seine.", "Largest planet?": "Mars"}
BASELINES = {"Capital of France?": "Paris", "Largest planet?": "Jupiter, by far."}


@pytest.mark.slow
@pytest.mark.skipif(
    not any(ep.name == "fairjudge" for ep in entry_points(group="inspect_ai")),
    reason="the installed fairjudge predates its inspect_ai entry point: pip install -e .",
)
def test_inspect_score_re_scores_a_log_with_the_pairwise_scorer(tmp_path: Path) -> None:
    task = Task(
        dataset=[Sample(input=q, target=BASELINES[q]) for q in OUTPUTS],
        solver=generate(),
        scorer=match(),
    )
    [base] = inspect_eval(
        task,
        model=get_model("mockllm/model", custom_outputs=answering(OUTPUTS), memoize=False),
        log_dir=str(tmp_path / "logs"),
        display="none",
    )
    assert base.status == "success", base.error
    (tmp_path / "sitecustomize.py").write_text(PROVIDER, encoding="utf-8")
    env = {**os.environ, "PYTHONPATH": os.pathsep.join([str(tmp_path), str(ROOT)])}
    out = tmp_path / "rescored.eval"
    done = subprocess.run(
        [*inspect_command(), "score", base.location, "--scorer", "fairjudge/pairwise_scorer",
         "--model-role", "grader=scripted/judge", "--action", "overwrite",
         "--output-file", str(out)],
        cwd=tmp_path, env=env, capture_output=True, text=True, timeout=300,
    )  # fmt: skip
    assert done.returncode == 0, done.stdout + done.stderr
    log = read_eval_log(str(out))
    scores = {s.input: s.scores["pairwise_scorer"] for s in log.samples or [] if s.scores}
    assert scores["Capital of France?"].value == 1.0
    assert scores["Largest planet?"].value == 0.0
    assert [c["raw"] for c in scores["Capital of France?"].metadata["calls"]] == ["A", "B"]
    assert log.results is not None
    [result] = log.results.scores
    assert result.metrics["win_rate"].value == pytest.approx(0.5)
