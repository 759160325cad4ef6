"""``fairjudge run CONFIG`` and ``--save-config``: one config file per evaluation.

Each command's saved config, run, prints the command's own ``--json`` byte for byte;
a config file is untrusted input (code, servers, keys), and every error names the
key and its line.
"""

from __future__ import annotations

import json
import os
import stat
import time
from pathlib import Path
from typing import Any

import pytest

from fairjudge.io import read_config
from tests.cli._invoke import invoke
from tests.server import JudgeServer

EX = "python:fairjudge.examples.judges:"

COMMANDS: dict[str, list[str]] = {
    "compare": ["compare", "demo_pairs.jsonl", "--judge", EX + "longer", "--rule", "lenient",
                "--seed", "3", "--stop-when", "decided", "--batch", "5", "--out", "c.jsonl"],
    "rank": ["rank", "rank_answers.jsonl", "--judge", EX + "longer", "--bootstrap", "200"],
    "calibrate": ["calibrate", "calibration.jsonl", "--judge", EX + "knows_facts",
                  "--min-kappa", "0.1"],
    "score": ["score", "score_answers.jsonl", "--judge", EX + "scorer", "--level", "0.9",
              "--no-fail-on-collapse"],
    "jury": ["jury", "demo_pairs.jsonl", "--judge", EX + "knows_facts", "--judge", EX + "longer",
             "--judge", EX + "first_position", "--weight", "2", "--weight", "1", "--weight", "1"],
    "score-jury": ["score-jury", "score_answers.jsonl", "--judge", EX + "scorer",
                   "--judge", EX + "length_scorer", "--aggregate", "median"],
}  # fmt: skip


@pytest.fixture
def here(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    """A folder holding the example data, as the working directory; clocks stopped.

    Every run reports its wall time and latencies, which differ between any two runs
    of the same command; with the clock stopped, two runs print the same bytes.
    """
    assert invoke("example-data", str(tmp_path)).exit_code == 0
    monkeypatch.chdir(tmp_path)
    monkeypatch.setattr(time, "perf_counter", lambda: 1000.0)
    return tmp_path


def _same_json(args: list[str], config: Path, *run_flags: str) -> dict[str, Any]:
    """Run ``args --json``, save its config, run that: the two stdouts are one.

    The command runs twice first, so that both compared runs find the store as full
    (a model judge's calls are cached by the first run).
    """
    assert invoke(*args, "--json").exit_code in (0, 3, 4)
    direct = invoke(*args, "--json")
    assert direct.exit_code in (0, 3, 4), direct.output
    saved = invoke(*args, "--save-config", str(config))
    assert saved.exit_code == 0, saved.output
    assert f"config saved: {config}" in saved.stderr
    again = invoke("run", str(config), "--json", *run_flags)
    assert again.exit_code == direct.exit_code, again.output
    assert again.stdout == direct.stdout
    return read_config(config).data


@pytest.mark.parametrize("command", sorted(COMMANDS))
def test_a_saved_config_runs_to_the_commands_own_json(command: str, here: Path) -> None:
    data = _same_json(COMMANDS[command], here / "eval.toml", "--allow-python-judges")
    assert data["command"] == command
    assert data["schema_version"] == 1
    assert data["file"] == COMMANDS[command][1]


def test_audit_config_runs_to_the_same_json(here: Path, openai_env: JudgeServer) -> None:
    args = ["audit", "--judge", "openai/m", "--base-url", openai_env.base_url, "--limit", "2",
            "--experiments", "position"]  # fmt: skip
    data = _same_json(args, here / "audit.toml")
    assert data["judge"] == ["openai/m"]
    assert data["experiments"] == "position"
    assert data["limit"] == 2


def test_the_config_keeps_values_as_typed(here: Path) -> None:
    data = _same_json(COMMANDS["compare"], here / "eval.toml", "--allow-python-judges")
    assert data == {
        "schema_version": 1, "command": "compare", "file": "demo_pairs.jsonl",
        "stop-when": ["decided"], "batch": 5, "rule": "lenient", "seed": 3, "out": "c.jsonl",
        "judge": EX + "longer",
    }  # fmt: skip


def test_every_out_header_records_the_config(here: Path) -> None:
    done = invoke(*COMMANDS["compare"])
    assert done.exit_code == 0, done.output
    header = json.loads(Path("c.jsonl").read_text("utf-8").splitlines()[0])["fairjudge"]
    saved = invoke(*COMMANDS["compare"], "--save-config", "eval.toml")
    assert saved.exit_code == 0
    assert header["config"] == read_config("eval.toml").data


def test_paths_are_read_from_the_config_files_folder(here: Path, tmp_path_factory: Any) -> None:
    (here / "cfg").mkdir()
    saved = invoke(*COMMANDS["rank"], "--save-config", "cfg/rank.toml")
    assert saved.exit_code == 0, saved.output
    assert read_config(here / "cfg" / "rank.toml").data["file"] == "../rank_answers.jsonl"
    elsewhere = tmp_path_factory.mktemp("elsewhere")
    import os

    os.chdir(elsewhere)
    done = invoke("run", str(here / "cfg" / "rank.toml"), "--json", "--allow-python-judges")
    assert done.exit_code == 0, done.output
    assert json.loads(done.stdout)["n_battles"] > 0


def _config(folder: Path, text: str) -> Path:
    path = folder / "eval.toml"
    path.write_text(text, encoding="utf-8")
    return path


def test_an_unknown_key_names_the_key_and_its_line(here: Path) -> None:
    path = _config(here, 'command = "compare"\nfile = "demo_pairs.jsonl"\nmax-cals = 10\n')
    done = invoke("run", str(path))
    assert done.exit_code == 2
    assert "eval.toml:3: max-cals: unknown key for `fairjudge compare`; did you mean " \
           "'max-calls'?" in done.stderr  # fmt: skip


def test_an_unknown_key_with_no_near_name_reads_as_a_sentence(here: Path) -> None:
    path = _config(here, 'command = "compare"\nfile = "demo_pairs.jsonl"\nzzz = 1\n')
    done = invoke("run", str(path))
    assert done.exit_code == 2
    assert "zzz: unknown key for `fairjudge compare`. Keys are the command's flags" in done.stderr


def test_json_in_the_file_says_it_is_given_on_the_command_line(here: Path) -> None:
    path = _config(here, 'command = "compare"\nfile = "demo_pairs.jsonl"\njson = true\n')
    done = invoke("run", str(path))
    assert done.exit_code == 2
    assert "eval.toml:3: json: is not a config key: --json is given on the command line, " \
           "e.g. fairjudge run FILE --json" in done.stderr  # fmt: skip


def test_save_config_in_the_file_names_the_command_that_takes_it(here: Path) -> None:
    """fairjudge run has no --save-config: the typed command writes the file."""
    path = _config(here, 'command = "compare"\nfile = "demo_pairs.jsonl"\nsave-config = "x.toml"\n')
    done = invoke("run", str(path))
    assert done.exit_code == 2
    assert "eval.toml:3: save-config: is not a config key: --save-config is given on the " \
           "command line, where it writes a config file such as this one (fairjudge compare " \
           "... --save-config PATH); drop the key" in done.stderr  # fmt: skip
    assert "fairjudge run FILE --save-config" not in done.stderr
    path = _config(here, 'command = "score"\nfile = "demo_pairs.jsonl"\nhelp = true\n')
    assert "--help is given on the command line, e.g. fairjudge score --help" \
        in invoke("run", str(path)).stderr  # fmt: skip


def test_save_config_to_a_pipe_is_refused(here: Path) -> None:
    """The config is renamed into place, which would replace a pipe or a device there."""
    os.mkfifo("pipe")
    done = invoke(*COMMANDS["rank"], "--save-config", "pipe")
    assert done.exit_code == 2, done.output
    assert "--save-config pipe: is not a regular file" in done.output
    assert stat.S_ISFIFO(Path("pipe").stat().st_mode)


def test_save_config_failures_are_one_error_line_as_out_s_are(
    here: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Not a usage error: no Click usage block, one ``error:`` line (and JSON), exit 2."""
    Path("afile").touch()
    done = invoke(*COMMANDS["compare"], "--save-config", "afile/x.toml")
    assert done.exit_code == 2
    assert done.stderr == "error: --save-config afile/x.toml: cannot write there (File exists)\n"
    done = invoke(*COMMANDS["rank"], "--save-config", "rank_answers.jsonl", "--json")
    assert done.exit_code == 2
    assert "Usage:" not in done.stderr
    assert "Try " not in done.stderr
    assert json.loads(done.stdout)["error"]["type"] == "ConfigError"

    def read_only(path: Path, chunks: Any) -> None:
        raise OSError(30, "Read-only file system")

    monkeypatch.setattr("fairjudge.io.write_atomic", read_only)
    done = invoke(*COMMANDS["score"], "--save-config", "eval.toml")
    assert done.exit_code == 2
    assert (
        done.stderr
        == "error: --save-config eval.toml: cannot write there (Read-only file system)\n"
    )


def test_a_wrong_type_names_the_key_and_its_line(here: Path) -> None:
    path = _config(here, 'command = "compare"\n\nfile = "demo_pairs.jsonl"\nseed = "3"\n')
    done = invoke("run", str(path), "--json")
    assert done.exit_code == 2
    error = json.loads(done.stdout)["error"]
    assert error["message"].endswith("eval.toml:4: seed: must be an integer; got '3'")
    path = _config(here, 'command = "compare"\nfile = "demo_pairs.jsonl"\nrule = "strict"\n')
    done = invoke("run", str(path))
    assert done.exit_code == 2
    assert "eval.toml:3: rule: must be one of 'conservative', 'lenient', 'soft'; got " \
           "'strict'" in done.stderr  # fmt: skip


def test_not_toml_names_the_line(here: Path) -> None:
    path = _config(here, 'command = "compare"\nfile = demo_pairs.jsonl\n')
    done = invoke("run", str(path))
    assert done.exit_code == 2
    assert "not valid TOML" in done.stderr
    assert "line 2" in done.stderr


def test_a_table_is_refused_with_its_line(here: Path) -> None:
    path = _config(here, 'command = "rank"\nfile = "rank_answers.jsonl"\n[judge]\nx = 1\n')
    done = invoke("run", str(path))
    assert done.exit_code == 2
    assert "eval.toml:3: judge: a config file is one flat table" in done.stderr


def test_an_unknown_command_or_schema_is_refused(here: Path) -> None:
    done = invoke("run", str(_config(here, 'command = "label"\n')))
    assert done.exit_code == 2
    assert "eval.toml:1: command: must be one of compare, rank" in done.stderr
    done = invoke("run", str(_config(here, 'schema_version = 2\ncommand = "rank"\n')))
    assert done.exit_code == 2
    assert "eval.toml:1: schema_version: 2 is unknown" in done.stderr
    done = invoke("run", str(_config(here, 'command = "rank"\n')))
    assert done.exit_code == 2
    assert "file: missing" in done.stderr


def test_a_python_judge_needs_the_flag(here: Path) -> None:
    path = _config(here, f'command = "rank"\nfile = "rank_answers.jsonl"\n'
                         f'judge = "{EX}longer"\n')  # fmt: skip
    done = invoke("run", str(path))
    assert done.exit_code == 2
    assert "eval.toml:3: judge: 'python:fairjudge.examples.judges:longer' would import and " \
           "run Python code" in done.stderr  # fmt: skip
    assert "fairjudge run --allow-python-judges" in done.stderr
    assert invoke("run", str(path), "--allow-python-judges").exit_code == 0


@pytest.mark.parametrize(
    ("key", "needed"),
    [("allow-python-judges", "--allow-python-judges"), ("allow-jury-servers", "--allow-servers")],
)
def test_the_file_cannot_grant_itself_trust(here: Path, key: str, needed: str) -> None:
    path = _config(here, 'command = "jury"\nfile = "demo_pairs.jsonl"\njury = "panel.toml"\n'
                         f"{key} = true\n")  # fmt: skip
    done = invoke("run", str(path))
    assert done.exit_code == 2
    assert f"eval.toml:4: {key}: lets a jury file do what only you may allow; give " \
           f"fairjudge run {needed} if you trust this file" in done.stderr  # fmt: skip


def test_a_server_off_this_machine_needs_the_flag(here: Path) -> None:
    path = _config(here, 'command = "compare"\nfile = "demo_pairs.jsonl"\njudge = "openai/m"\n'
                         'base-url = "https://judge.example.com/v1"\n')  # fmt: skip
    done = invoke("run", str(path))
    assert done.exit_code == 2
    assert "eval.toml:4: base-url: names a server off this machine (judge.example.com)" in (
        done.stderr
    )
    assert "fairjudge run --allow-servers" in done.stderr
    path = _config(here, 'command = "compare"\nfile = "demo_pairs.jsonl"\nexecutor = "ray"\n'
                         'ray-address = "10.0.0.5:6379"\n')  # fmt: skip
    done = invoke("run", str(path))
    assert done.exit_code == 2
    assert "eval.toml:4: ray-address: names a server off this machine (10.0.0.5)" in done.stderr


def test_a_loopback_server_needs_no_flag(here: Path, openai_env: JudgeServer) -> None:
    path = _config(here, 'command = "compare"\nfile = "demo_pairs.jsonl"\njudge = "openai/m"\n'
                         f'base-url = "{openai_env.base_url}"\n')  # fmt: skip
    done = invoke("run", str(path), "--json")
    assert done.exit_code == 0, done.output
    assert json.loads(done.stdout)["n_items"] == 20


def test_an_api_key_in_the_file_is_refused(here: Path) -> None:
    done = invoke("run", str(_config(here, 'command = "rank"\napi_key = "abc"\n')))
    assert done.exit_code == 2
    assert "eval.toml:2: api_key: an API key never goes in a config file" in done.stderr
    path = _config(here, 'command = "compare"\nfile = "demo_pairs.jsonl"\njudge = "openai/m"\n'
                         'base-url = "http://127.0.0.1:9/v1/sk-abcdefghijklmnop"\n')  # fmt: skip
    done = invoke("run", str(path))
    assert done.exit_code == 2
    assert "eval.toml:4: base-url: holds what looks like a credential" in done.stderr
    assert "sk-abcdefghijklmnop" not in done.output


def test_save_config_never_writes_a_key(here: Path) -> None:
    url = "http://127.0.0.1:9/v1/sk-abcdefghijklmnop"
    done = invoke("compare", "demo_pairs.jsonl", "--judge", "openai/m", "--base-url", url,
                  "--save-config", "eval.toml")  # fmt: skip
    assert done.exit_code == 2
    assert "--base-url holds what looks like a credential" in done.output
    assert "sk-abcdefghijklmnop" not in done.output
    assert not Path("eval.toml").exists()


def test_save_config_names_the_flag_a_python_judge_needs(here: Path) -> None:
    done = invoke(*COMMANDS["score"], "--save-config", "s.toml")
    assert done.exit_code == 0
    assert "run it with `fairjudge run s.toml --allow-python-judges`" in done.stderr
    assert done.stdout == ""


def _loaded(name: str) -> Any:
    import importlib

    import typer

    from fairjudge.cli import app
    from fairjudge.cli._app import COMMANDS

    importlib.import_module(COMMANDS[name][0])
    group = typer.main.get_command(app)
    return group.get_command(None, name)  # type: ignore[attr-defined]


@pytest.mark.parametrize("command", ["compare", "rank", "calibrate", "score", "audit", "jury",
                                     "score-jury"])  # fmt: skip
def test_every_flag_of_the_command_is_a_key(command: str) -> None:
    from fairjudge.cli._run_config import config_keys

    click_command = _loaded(command)
    flags = {_long(p.opts) for p in click_command.params if p.param_type_name == "option"}
    keys = config_keys(click_command)
    assert {"--" + k for k in keys if keys[k].is_option} == flags - {"--json", "--save-config"}
    # Flags added by other slices are keys as soon as they exist: nothing lists them here.
    assert {"markdown", "batch-api", "max-calls", "executor"} <= set(keys)
    if command not in ("jury", "score-jury"):  # a panel's members set their own
        assert "reasoning-effort" in keys
    assert "--save-config" in flags


def _long(opts: list[str]) -> str:
    return next(o for o in opts if o.startswith("--"))


def test_docs_config_lists_every_key_of_every_command() -> None:
    from fairjudge.cli._app import CONFIG_COMMANDS
    from fairjudge.cli._run_config import config_keys

    page = (Path(__file__).resolve().parents[2] / "docs" / "config.md").read_text("utf-8")
    missing = {
        key
        for command in CONFIG_COMMANDS
        for key in config_keys(_loaded(command))
        if f"| `{key}` |" not in page
    }
    assert missing == set(), f"docs/config.md lacks these keys: {sorted(missing)}"


def test_save_config_never_overwrites_a_file_the_command_uses(here: Path) -> None:
    before = Path("rank_answers.jsonl").read_bytes()
    done = invoke(*COMMANDS["rank"], "--save-config", "rank_answers.jsonl")
    assert done.exit_code == 2
    assert "--save-config rank_answers.jsonl is also this command's file" in done.output
    assert Path("rank_answers.jsonl").read_bytes() == before


def test_the_out_headers_config_masks_a_key(here: Path, openai_env: JudgeServer) -> None:
    url = openai_env.base_url + "?key=sk-abcdefghijklmnop"
    done = invoke("compare", "demo_pairs.jsonl", "--judge", "openai/m", "--base-url", url,
                  "--out", "c.jsonl")  # fmt: skip
    assert done.exit_code == 0, done.output
    text = Path("c.jsonl").read_text("utf-8")
    assert "sk-abcdefghijklmnop" not in text
    config = json.loads(text.splitlines()[0])["fairjudge"]["config"]
    assert config["base-url"].startswith(openai_env.base_url)
    assert config["judge"] == "openai/m"


@pytest.mark.parametrize("key", ["out", "html", "markdown", "store"])
def test_a_config_never_writes_over_itself(key: str, here: Path) -> None:
    (here / "cfg").mkdir()
    text = (f'command = "rank"\nfile = "../rank_answers.jsonl"\njudge = "{EX}longer"\n'
            f'{key} = "eval.toml"\n')  # fmt: skip
    path = _config(here / "cfg", text)
    done = invoke("run", str(path), "--allow-python-judges")
    assert done.exit_code == 2, done.output
    assert f"eval.toml:4: {key}: names this config file itself" in done.stderr
    assert path.read_text("utf-8") == text


def test_a_commands_error_names_the_key_and_its_line_not_the_flag(here: Path) -> None:
    path = _config(here, f'command = "compare"\nfile = "demo_pairs.jsonl"\njudge = "{EX}longer"\n'
                         "rounds = 0\n")  # fmt: skip
    done = invoke("run", str(path), "--allow-python-judges")
    assert done.exit_code == 2, done.output
    assert "eval.toml:4: rounds: must be an integer >= 1; got 0" in done.stderr
    assert "--rounds" not in done.output
    done = invoke("run", str(path), "--allow-python-judges", "--json")
    assert json.loads(done.stdout)["error"]["message"].endswith(
        "eval.toml:4: rounds: must be an integer >= 1; got 0"
    )


def test_a_remedy_names_the_key_to_set(here: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.delenv("OPENAI_API_KEY", raising=False)
    path = _config(here, 'command = "compare"\nfile = "demo_pairs.jsonl"\njudge = "openai/m"\n')
    done = invoke("run", str(path))
    assert done.exit_code == 2, done.output
    assert "set base-url for a server that needs none" in done.stderr
    assert "--base-url" not in done.output


def test_fairjudge_runs_own_flags_stay_flags(here: Path) -> None:
    path = _config(here, f'command = "compare"\nfile = "demo_pairs.jsonl"\njudge = "{EX}longer"\n'
                         'markdown = "-"\n')  # fmt: skip
    done = invoke("run", str(path), "--allow-python-judges", "--json")
    assert done.exit_code == 2, done.output
    message = json.loads(done.stdout)["error"]["message"]
    assert message.startswith(f"{path}:4: markdown: markdown - and --json both print")
    assert "--markdown" not in message


def test_a_click_error_names_the_key_and_its_line(
    here: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Click's own errors (a value its type refuses) name the flag; under run, the key."""
    import typer
    from typer._click.globals import get_current_context

    import fairjudge.stats

    real = fairjudge.stats.shared_resamples

    def refuse() -> Any:
        if get_current_context().info_name == "compare":
            raise typer.BadParameter("0 is too few", param_hint="'--max-calls'")
        return real()

    monkeypatch.setattr(fairjudge.stats, "shared_resamples", refuse)
    path = _config(here, f'command = "compare"\nfile = "demo_pairs.jsonl"\njudge = "{EX}longer"\n'
                         "max-calls = 5\n")  # fmt: skip
    done = invoke("run", str(path), "--allow-python-judges")
    assert done.exit_code == 2, done.output
    assert "eval.toml:4: max-calls: Invalid value for 'max-calls': 0 is too few" in done.stderr
    assert "--max-calls" not in done.output


def test_a_click_error_on_a_flag_with_a_short_form_names_the_key_alone(
    here: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Click names a flag with a short form as ``'--quiet' / '-q'``; under run, only the key."""
    import typer
    from typer._click.globals import get_current_context

    import fairjudge.stats

    real = fairjudge.stats.shared_resamples

    def refuse() -> Any:
        if get_current_context().info_name == "compare":
            raise typer.BadParameter("not now", param_hint="'--quiet' / '-q'")
        return real()

    monkeypatch.setattr(fairjudge.stats, "shared_resamples", refuse)
    path = _config(here, f'command = "compare"\nfile = "demo_pairs.jsonl"\njudge = "{EX}longer"\n'
                         "quiet = true\n")  # fmt: skip
    done = invoke("run", str(path), "--allow-python-judges")
    assert done.exit_code == 2, done.output
    assert "eval.toml:4: quiet: Invalid value for 'quiet': not now" in done.stderr
    assert "'-q'" not in done.output
    done = invoke("run", str(path), "--allow-python-judges", "--json")
    message = json.loads(done.stdout)["error"]["message"]
    assert message.endswith("eval.toml:4: quiet: Invalid value for 'quiet': not now")


def test_the_out_header_of_a_config_run_elsewhere_has_the_files_paths(here: Path) -> None:
    (here / "sub").mkdir()
    (here / "sub" / "demo_pairs.jsonl").write_bytes((here / "demo_pairs.jsonl").read_bytes())
    os.chdir(here / "sub")
    saved = invoke(*COMMANDS["compare"], "--save-config", "eval.toml")
    assert saved.exit_code == 0, saved.output
    os.chdir(here)
    done = invoke("run", "sub/eval.toml", "--allow-python-judges")
    assert done.exit_code == 0, done.output
    header = json.loads(Path("sub/c.jsonl").read_text("utf-8").splitlines()[0])["fairjudge"]
    assert header["config"] == read_config("sub/eval.toml").data
    assert header["config"]["file"] == "demo_pairs.jsonl"
    assert header["config_file"] == "sub/eval.toml"


def test_a_typed_commands_header_names_no_config_file(here: Path) -> None:
    assert invoke(*COMMANDS["compare"]).exit_code == 0
    header = json.loads(Path("c.jsonl").read_text("utf-8").splitlines()[0])["fairjudge"]
    assert "config_file" not in header
    assert header["config"]["file"] == "demo_pairs.jsonl"


def test_every_file_a_value_names_is_read_from_the_config_files_folder(here: Path) -> None:
    from fairjudge.cli._run_config import Trust, config_argv

    (here / "sub").mkdir()
    path = _config(here / "sub", 'command = "audit"\nitems = "items.jsonl"\n'
                                 'framing-templates = "a.toml,b.toml"\n'
                                 'concise-template = "mt-bench"\n')  # fmt: skip
    argv = config_argv(read_config(path), "audit", _loaded("audit"), Trust())
    assert f"--framing-templates={os.path.join('sub', 'a.toml')},"\
           f"{os.path.join('sub', 'b.toml')}" in argv  # fmt: skip
    assert f"--items={os.path.join('sub', 'items.jsonl')}" in argv
    assert "--concise-template=mt-bench" in argv
    path = _config(here / "sub", 'command = "audit"\nitems = "items.jsonl"\n'
                                 'framing-templates = "pairwise,b.toml"\n')  # fmt: skip
    argv = config_argv(read_config(path), "audit", _loaded("audit"), Trust())
    assert f"--framing-templates=pairwise,{os.path.join('sub', 'b.toml')}" in argv


def test_save_config_writes_each_template_file_from_its_folder(here: Path) -> None:
    (here / "sub").mkdir()
    done = invoke("audit", "--items", "demo_pairs.jsonl", "--judge", "openai/m",
                  "--framing-templates", "a.toml,b.toml",
                  "--save-config", "sub/audit.toml")  # fmt: skip
    assert done.exit_code == 0, done.output
    assert read_config("sub/audit.toml").data["framing-templates"] == "../a.toml,../b.toml"


def test_a_saved_report_config_draws_the_same_page_from_anywhere(
    here: Path, tmp_path_factory: Any
) -> None:
    assert invoke(*COMMANDS["compare"]).exit_code == 0
    (here / "cfg").mkdir()
    args = ["report", "c.jsonl", "-o", "cfg/page.html", "--seed", "2", "--title", "Run"]
    direct = invoke(*args, "--json")
    assert direct.exit_code == 0, direct.output
    page = Path("cfg/page.html").read_bytes()
    saved = invoke(*args, "--save-config", "cfg/report.toml")
    assert saved.exit_code == 0, saved.output
    assert read_config("cfg/report.toml").data == {
        "schema_version": 1, "command": "report", "results": "../c.jsonl",
        "output": "page.html", "title": "Run", "seed": 2,
    }  # fmt: skip
    Path("cfg/page.html").unlink()
    os.chdir(here / "cfg")
    again = invoke("run", "report.toml", "--json")
    assert again.exit_code == 0, again.output
    assert again.stdout == direct.stdout
    assert Path("page.html").read_bytes() == page
    os.chdir(tmp_path_factory.mktemp("elsewhere"))
    done = invoke("run", str(here / "cfg" / "report.toml"), "--json")
    assert done.exit_code == 0, done.output
    assert done.stdout == direct.stdout


def test_a_report_config_without_its_results_names_the_key(here: Path) -> None:
    done = invoke("run", str(_config(here, 'command = "report"\noutput = "p.html"\n')))
    assert done.exit_code == 2
    assert "results: missing: `fairjudge report` needs its results (FILE)" in done.stderr


@pytest.mark.parametrize(
    ("command", "bad", "said"),
    [
        ("compare", ["--seed", "-1"], "--seed must be >= 0; got -1"),
        ("compare", ["--concurrency", "0"], "--concurrency must be an integer >= 1; got 0"),
        ("rank", ["--bootstrap", "0"], "--bootstrap must be >= 1; got 0"),
        ("score", ["--level", "5"], "--level must be in (0, 1); got 5.0"),
        ("jury", ["--max-unresolved", "2"], "--max-unresolved must be in [0, 1]; got 2.0"),
        ("calibrate", ["--temperature", "-1"], "--temperature must be in [0, 2]; got -1.0"),
        ("score-jury", ["--wait"], "--wait applies with --batch-api only"),
    ],
)
def test_save_config_refuses_a_value_every_run_refuses(
    here: Path, command: str, bad: list[str], said: str
) -> None:
    """It wrote the file and exited 0; `fairjudge run` of it then exited 2 on that value."""
    done = invoke(*COMMANDS[command], *bad, "--save-config", "eval.toml")
    assert done.exit_code == 2, done.output
    assert done.stderr.startswith(f"error: {said}")
    assert not Path("eval.toml").exists()
    good = invoke(*COMMANDS[command], "--save-config", "eval.toml")
    assert good.exit_code == 0, good.output  # flags not given (None) are not refused
    assert Path("eval.toml").exists()


@pytest.mark.parametrize(
    ("bad", "said"),
    [
        (["--seed", "-1"], "--seed must be >= 0; got -1"),
        (["--level", "1"], "--level must be in (0, 1); got 1.0"),
        (["--bootstrap", "0"], "--bootstrap must be >= 1; got 0"),
        (["-o", "c.jsonl"], "--output c.jsonl is the results file itself; give another name"),
    ],
)
def test_report_save_config_refuses_a_value_every_report_refuses(
    here: Path, bad: list[str], said: str
) -> None:
    """It wrote the file and exited 0; `fairjudge run` of it then exited 2 on that value."""
    done = invoke("report", "c.jsonl", "-o", "page.html", *bad, "--save-config", "r.toml")
    assert done.exit_code == 2, done.output
    assert done.stderr.startswith(f"error: {said}")
    assert not Path("r.toml").exists()
    good = invoke("report", "c.jsonl", "-o", "page.html", "--seed", "2", "--save-config", "r.toml")
    assert good.exit_code == 0, good.output  # the results file is the run's to read
    assert Path("r.toml").exists()
