"""A panel member's own price: ``price_input``/``price_output``/``price_cached_input``.

Before, a jury file could not price a member, so a panel with a model fairjudge's
list does not name (a self-hosted or new one) reported no cost for that member; the
price flags priced every member alike. The keys are the flags' names, checked as
the flags are, and apply to that member's calls alone.
"""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import pytest

from fairjudge import ConfigError, InputError, Item
from fairjudge.evaluation import EvalSettings, evaluate_jury
from fairjudge.judges import Jury, MemberSpec, load_jury_file
from fairjudge.runner import Prices, RunOptions
from tests.server import JudgeServer, Script

ITEMS = [Item(f"question {i}", "short", "a much longer answer", id=str(i)) for i in range(2)]
QUIET = RunOptions(progress="quiet")


@pytest.fixture
def second_server(openai_env: JudgeServer) -> Iterator[JudgeServer]:
    """Another server (same key as ``openai_env``): a model no list prices, elsewhere."""
    with JudgeServer(Script()) as server:
        yield server


def _panel_file(tmp_path: Path, first: JudgeServer, second: JudgeServer, keys: str) -> Path:
    path = tmp_path / "panel.toml"
    path.write_text(
        f'[[member]]\nname = "priced"\njudge = "openai/self-hosted"\n'
        f'base_url = "{first.base_url}"\n{keys}'
        f'[[member]]\nname = "unpriced"\njudge = "openai/self-hosted"\n'
        f'base_url = "{second.base_url}"\n',
        encoding="utf-8",
    )
    return path


def test_a_members_price_is_charged_to_its_calls_alone(
    openai_env: JudgeServer, second_server: JudgeServer, tmp_path: Path
) -> None:
    keys = "price_input = 2.0\nprice_output = 8.0\n"
    path = _panel_file(tmp_path, openai_env, second_server, keys)
    members = load_jury_file(path).members
    assert (members[0].price_input, members[0].price_output) == (2.0, 8.0)  # recorded there
    assert members[0].prices() == Prices(2.0, 8.0)
    store = tmp_path / "store.sqlite"
    with Jury.from_specs(members, store=store, options=QUIET) as jury:
        evaluate_jury(jury, ITEMS, EvalSettings(n_resamples=50))
        priced, unpriced = jury.last_usage
    assert priced.made == 4
    assert priced.input_tokens > 0
    expected = (priced.input_tokens * 2.0 + priced.output_tokens * 8.0) / 1e6
    assert priced.cost_usd == pytest.approx(expected)
    assert unpriced.made == 4
    assert unpriced.cost_usd is None  # no price of its own, and no list price: unknown


def test_members_on_one_model_and_server_may_not_give_two_prices(
    openai_env: JudgeServer, tmp_path: Path
) -> None:
    path = tmp_path / "panel.toml"
    member = f'[[member]]\njudge = "openai/self-hosted"\nbase_url = "{openai_env.base_url}"\n'
    path.write_text(
        member + "price_input = 1.0\nprice_output = 1.0\n"
        + member + 'template = "explain"\nprice_input = 2.0\nprice_output = 2.0\n',
        encoding="utf-8",
    )  # fmt: skip
    members = load_jury_file(path).members
    with pytest.raises(InputError) as caught:
        Jury.from_specs(members, options=QUIET)
    assert str(caught.value).startswith(f"{path}:10: member.1.price_input: members ")
    assert "which has one price" in str(caught.value)


@pytest.mark.parametrize(
    ("keys", "shown"),
    [
        ("price_input = 1.0\n", ":4: member.0.price_input: price_input needs price_output too"),
        ("price_input = 1.0\nprice_output = 2.0\nprice_cached_input = 1.5\n",
         ":6: member.0.price_cached_input: price_cached_input (1.5) is above price_input (1.0)"),
        ("price_input = -1.0\nprice_output = 2.0\n",
         ":4: member.0.price_input: price_input must be a finite number >= 0"),
        ('price_input = "1"\nprice_output = 2.0\n',
         ":4: member.0.price_input: Input should be a valid number"),
    ],
)  # fmt: skip
def test_the_price_keys_are_checked_as_the_flags_are_when_the_file_is_read(
    tmp_path: Path, keys: str, shown: str
) -> None:
    path = tmp_path / "panel.toml"
    path.write_text(
        f'[[member]]\njudge = "openai/m"\nbase_url = "http://127.0.0.1:9/v1"\n{keys}'
        '[[member]]\njudge = "openai/n"\n',
        encoding="utf-8",
    )
    with pytest.raises(InputError) as caught:
        load_jury_file(path)
    assert str(caught.value).startswith(f"{path}{shown}")


@pytest.mark.parametrize("judge", ["python:tests.judge_fixtures:longer", "replay:x.jsonl"])
def test_a_price_on_a_member_that_calls_no_model_is_refused(judge: str) -> None:
    priced = MemberSpec(judge, price_input=1.0, price_output=1.0)
    with pytest.raises(ConfigError) as caught:
        Jury.from_specs([priced, MemberSpec("python:tests.judge_fixtures:longer")])
    assert caught.value.params == ("price_input", "price_output")
    assert "does not apply" in str(caught.value) or "do not apply" in str(caught.value)


def test_max_cost_runs_a_panel_whose_members_price_models_the_list_lacks(
    openai_env: JudgeServer, second_server: JudgeServer, tmp_path: Path
) -> None:
    """Before, max_cost refused the panel: the list prices name no openai/self-hosted."""
    path = _panel_file(
        tmp_path, openai_env, second_server, "price_input = 2.0\nprice_output = 8.0\n"
    )
    text = path.read_text(encoding="utf-8") + "price_input = 1.0\nprice_output = 4.0\n"
    path.write_text(text, encoding="utf-8")
    options = RunOptions(progress="quiet", max_cost=1.0)
    with Jury.from_specs(load_jury_file(path).members, store=tmp_path / "s.sqlite",
                         options=options) as jury:  # fmt: skip
        evaluate_jury(jury, ITEMS, EvalSettings(n_resamples=50))
        priced, other = jury.last_usage
        run = jury.last_run
    assert run is not None
    assert run.stopped is None
    assert priced.cost_usd is not None
    assert other.cost_usd is not None
    assert other.cost_usd == pytest.approx(
        (other.input_tokens * 1.0 + other.output_tokens * 4.0) / 1e6
    )
    assert run.cost_usd == pytest.approx(priced.cost_usd + other.cost_usd)


def test_a_missing_price_key_is_named_in_the_files_words_not_as_a_flag(tmp_path: Path) -> None:
    path = tmp_path / "panel.toml"
    path.write_text(
        '[[member]]\njudge = "openai/m"\nprice_input = 1.0\n[[member]]\njudge = "openai/n"\n',
        encoding="utf-8",
    )
    with pytest.raises(InputError) as caught:
        load_jury_file(path)
    assert caught.value.params == ()  # no --price-output for the command line to name
    assert "member.0.price_input: price_input needs price_output too" in str(caught.value)
