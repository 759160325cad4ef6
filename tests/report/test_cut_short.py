"""``fairjudge report`` refuses a results file cut at a line boundary (QA 38 #9).

Every line of such a file parses, so only the header's count of the run's judge calls
(``calls.total``, not-run calls included) shows that records are missing; the page
of what is left would say "n = 4" of a 20-item run with exit 0.
"""

from __future__ import annotations

import json
from pathlib import Path

import pytest

import fairjudge
from fairjudge._errors import InputError
from fairjudge.report._page_load import load_comparison
from tests.cli._invoke import invoke

EX = Path(fairjudge.__file__).parent / "examples"
J = "python:fairjudge.examples.judges:"


def _out(tmp_path: Path, *more: str, code: int = 0) -> list[str]:
    out = tmp_path / "c.jsonl"
    done = invoke("compare", str(EX / "demo_pairs.jsonl"), "--judge", J + "knows_facts",
                  "--out", str(out), "-q", *more)  # fmt: skip
    assert done.exit_code == code, done.output
    return out.read_text(encoding="utf-8").splitlines(keepends=True)


def test_a_file_cut_at_a_line_is_refused_naming_the_counts(tmp_path: Path) -> None:
    cut = tmp_path / "cut.jsonl"
    cut.write_text("".join(_out(tmp_path)[:5]), encoding="utf-8")
    done = invoke("report", str(cut), "-o", str(tmp_path / "p.html"))
    assert done.exit_code == 2
    assert (
        "its header records 40 judge calls, but its 4 result records hold 8: the file is cut "
        "short or edited"
    ) in " ".join(done.output.split())
    assert not (tmp_path / "p.html").exists()
    with pytest.raises(InputError, match="header records 40 judge calls"):
        load_comparison(cut)


def test_whole_files_still_draw(tmp_path: Path) -> None:
    for more, code in (((), 0), (("--max-calls", "10"), 5), (("--rounds", "1"), 0)):
        lines = _out(tmp_path, *more, code=code)  # a budget's stop records its not-run calls
        total = json.loads(lines[0])["fairjudge"]["calls"]["total"]
        _, result = load_comparison(tmp_path / "c.jsonl")
        assert sum(len(j.calls) for j in result.judgments) == total


def test_a_file_without_the_count_is_read_as_before(tmp_path: Path) -> None:
    lines = _out(tmp_path)
    header = json.loads(lines[0])
    del header["fairjudge"]["calls"]
    cut = tmp_path / "old.jsonl"
    cut.write_text(json.dumps(header) + "\n" + "".join(lines[1:5]), encoding="utf-8")
    _, result = load_comparison(cut)
    assert result.n_items == 4


def test_identical_items_sharing_their_calls_still_draw(tmp_path: Path) -> None:
    # The run asks for each distinct call once: two identical items share their calls'
    # keys, and the header's calls.total counts them once. A whole file of such a run
    # was refused as "cut short" (2 calls recorded in the header, 4 in the records).
    lines = _out(tmp_path)
    header, records = lines[0], [json.loads(line) for line in lines[1:]]
    for number, record in enumerate(records):
        for call in record["calls"]:
            call["key"] = f"key-{number}-{call['order']}"
    twin = dict(records[0], id="q01-twin")
    whole = tmp_path / "twins.jsonl"
    whole.write_text(
        header + "".join(json.dumps(r) + "\n" for r in [*records, twin]), encoding="utf-8"
    )
    done = invoke("report", str(whole), "-o", str(tmp_path / "p.html"))
    assert done.exit_code == 0, done.output
    # Fewer distinct calls than the header's count is still refused.
    cut = tmp_path / "cut.jsonl"
    cut.write_text(
        header + "".join(json.dumps(r) + "\n" for r in [*records[:3], twin]), encoding="utf-8"
    )
    done = invoke("report", str(cut), "-o", str(tmp_path / "q.html"))
    assert done.exit_code == 2
    assert "its header records 40 judge calls, but its 4 result records hold 6" in " ".join(
        done.output.split()
    )
