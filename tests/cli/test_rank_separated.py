"""``rank`` on battles with no finite maximum, seen only after judging.

Before, ``rank --pairing baseline`` judged all 48 pairs in both orders, then stopped
with "error: outcomes: the ratings have no finite maximum-likelihood value ... Pass
l2 > 0" and exit 2: no leaderboard, no ``--html``, and exit 2 after the calls. Now the
fit falls back to a ridge of ``--l2 0.1`` and says so, the model that only the ridge
keeps finite (delta, which lost all 16 of its battles) is marked, and the exit code
is 0. The commands run as processes, as a user runs them.
"""

from __future__ import annotations

import json
from pathlib import Path

from tests.cli_process import fairjudge, flat

ROOT = Path(__file__).resolve().parents[2]
RANK = [
    "rank", "examples/rank_answers.jsonl", "--judge", "python:examples.judges:longer",
    "--pairing", "baseline", "--baseline", "alpha", "--bootstrap", "100",
]  # fmt: skip


def test_separated_battles_give_a_leaderboard_with_the_ridge_said(tmp_path: Path) -> None:
    html = tmp_path / "rank.html"
    done = fairjudge(*RANK, "--html", str(html))
    assert done.returncode == 0, done.stderr
    assert "error" not in done.stderr
    # The leaderboard, with delta's interval refused and the reason under it.
    rows = {line.split("│")[2].strip(): line for line in done.stdout.splitlines() if "│" in line}
    assert set(rows) >= {"alpha", "beta", "gamma", "delta"}
    assert "n/a *" in rows["delta"]
    assert "0 / 0 / 16" in rows["delta"]
    assert "n/a" not in rows["gamma"]
    assert (
        "* delta: no finite maximum-likelihood rating: it never beat or tied the group of "
        "'alpha' (directly or through other models), so without a ridge it runs off to minus "
        "infinity; the rating shown is where the ridge (l2=0.1) holds it"
    ) in flat(done.stdout)
    # The fallback is stated, naming the flag and the value it used.
    assert "no finite ratings: in the judged battles delta never lost, or never won" in flat(
        done.stderr
    )
    assert "Fitted with a ridge of --l2 0.1, as Chatbot Arena's tooling does" in flat(done.stderr)
    assert html.is_file()
    assert "no finite maximum-likelihood rating" in html.read_text(encoding="utf-8")


def test_the_json_says_which_ratings_the_ridge_holds() -> None:
    done = fairjudge(*RANK, "--json", "-q")
    assert done.returncode == 0, done.stderr
    payload = json.loads(done.stdout)
    assert (payload["l2"], payload["l2_fallback"], payload["held_by_ridge"]) == (
        0.1,
        True,
        ["delta"],
    )
    rows = {r["model"]: r for r in payload["ratings"]}
    assert [r["model"] for r in payload["ratings"]][-1] == "delta"
    assert rows["delta"]["ci"] == {
        "low": None,
        "high": None,
        "level": 0.95,
        "estimable": False,
        "reason": rows["delta"]["ci"]["reason"],
    }
    assert "runs off to minus infinity" in rows["delta"]["ci"]["reason"]
    assert rows["delta"]["rank_ci"]["estimable"]  # the battles do put it last
    assert rows["beta"]["ci"]["estimable"]
    assert "--l2 0.1" in flat(done.stderr)


def test_style_control_on_separated_battles_reports_both_problems() -> None:
    done = fairjudge(*RANK, "--style-control")
    assert done.returncode == 0, done.stderr
    # The fallback ridge is not a cure the user chose: a judge that only prefers the
    # longer answer is still reported as separated by length.
    assert (
        "style coefficient of length cannot be estimated: the verdicts are (almost) "
        "perfectly separated" in flat(done.stdout)
    )
    assert "fitted with the fallback ridge l2=0.1: without a ridge the ratings of delta" in flat(
        done.stdout
    )
    assert "--l2 0.1" in flat(done.stderr)


def test_a_ridge_the_user_chose_is_used_and_what_it_holds_is_said() -> None:
    done = fairjudge(*RANK, "--l2", "0.5", "--json")
    assert done.returncode == 0, done.stderr
    payload = json.loads(done.stdout)
    assert (payload["l2"], payload["l2_fallback"], payload["held_by_ridge"]) == (
        0.5,
        False,
        ["delta"],
    )
    assert "held by the ridge: delta never lost, or never won" in flat(done.stderr)
    assert "--l2 0.5 holds them" in flat(done.stderr)
