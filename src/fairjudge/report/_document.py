"""What every HTML page shares: the headline, the assets, the policy, the embedded data.

A page is one self-contained file rendered by jinja2 with autoescaping on, so every
value is escaped; the only text marked safe is the package's own CSS and JavaScript
and the embedded JSON, which :func:`script_json` escapes for a ``<script>`` element.
The page's Content-Security-Policy (:func:`content_security_policy`) forbids every
load from anywhere (``default-src 'none'``), lets inline styles and ``data:`` images
through, and runs only the one script whose SHA-256 it names: a ``<script>`` that
slipped into the page by any route would not run. That one script is
:func:`page_script`: the shared permalink (``templates/permalink.js``) followed by
the page's own explorer.
"""

from __future__ import annotations

import base64
import hashlib
import json
import math
import re
from dataclasses import dataclass
from functools import cache
from importlib import resources
from typing import TYPE_CHECKING, Any

from fairjudge.report._text import HiddenTable, replace_hidden

if TYPE_CHECKING:
    import jinja2

__all__ = [
    "Headline",
    "asset",
    "compact_css",
    "compact_script",
    "content_security_policy",
    "environment",
    "json_ready",
    "page_script",
    "script_json",
]


@dataclass(frozen=True, slots=True)
class Headline:
    """A page's conclusion (every page's): one sentence, and the figure behind it if any.

    Attributes:
        verdict: The sentence (``#fj-verdict``), the one the command prints.
        label: What the figure is; ``estimate`` and ``ci`` the figure as printed.
        note: A line under the figure (counts, how it was estimated).
        warnings: Shown in the warning style (partial run, failures, alarms).
        gate: A line above the verdict (``#fj-gate``): ``calibrate``'s gate.
    """

    verdict: str
    label: str = ""
    estimate: str = ""
    ci: str = ""
    note: str = ""
    warnings: tuple[str, ...] = ()
    gate: str = ""


def asset(name: str) -> str:
    """The text of ``templates/NAME``, shipped in the package."""
    return resources.files("fairjudge.report").joinpath("templates", name).read_text("utf-8")


@cache
def environment() -> jinja2.Environment:
    """The templates' jinja2 environment: autoescaping on, an unknown name an error."""
    import jinja2  # only the pages need it: keep it off every command's start-up

    return jinja2.Environment(
        loader=jinja2.PackageLoader("fairjudge.report", "templates"),
        autoescape=True,
        undefined=jinja2.StrictUndefined,
        trim_blocks=True,
        lstrip_blocks=True,
    )


def page_script(name: str) -> str:
    """The page's one script: the shared permalink code, then ``templates/NAME``.

    Raises:
        AssertionError: The script holds ``</script``, which would end its own element.
    """
    script = compact_script(asset("permalink.js") + asset(name))
    if "</script" in script.lower():
        raise AssertionError(f"{name} and permalink.js must not contain '</script'")
    return script


# A comment that starts its line: a block comment to its close, or a // line. The
# package's scripts put no code after a block comment's close and hold no template
# literal or multi-line string, so dropping these and each line's indentation keeps
# every statement as written (tests/report/test_page_kit.py checks both).
_SCRIPT_COMMENT = re.compile(r"^[ \t]*(?:/\*.*?\*/|//[^\n]*)[ \t]*\n", re.S | re.M)
_INDENT = re.compile(r"^[ \t]+", re.M)


@cache
def compact_script(script: str) -> str:
    """``script`` without its comments, indentation and blank lines: what a page ships.

    Every page carries the explorer; its comments are for the reader of
    ``templates/explorer.js``, not for each page's bytes.
    """
    text = _INDENT.sub("", _SCRIPT_COMMENT.sub("", script))
    return "\n".join(line for line in text.splitlines() if line) + "\n"


_CSS_COMMENT = re.compile(r"/\*.*?\*/", re.S)
_CSS_SPACE = re.compile(r"\s*([{};,>])\s*")
_CSS_COLON = re.compile(r"([{;][-\w]+):\s+")  # a declaration's "name: value"


@cache
def compact_css(css: str) -> str:
    """The stylesheet without comments and the whitespace no rule needs (every page's copy).

    Whitespace goes only around ``{ } ; , >`` and after a declaration's colon, where
    CSS never reads it; a space between words (a descendant selector, ``1px solid``)
    stays one space.
    """
    text = " ".join(_CSS_COMMENT.sub("", css).split())
    return _CSS_COLON.sub(r"\1:", _CSS_SPACE.sub(r"\1", text)).replace(";}", "}")


def content_security_policy(script: str) -> str:
    """The page's policy: nothing loads; inline CSS, ``data:`` images and ``script`` run."""
    digest = base64.b64encode(hashlib.sha256(script.encode("utf-8")).digest()).decode("ascii")
    return (
        "default-src 'none'; "
        f"script-src 'sha256-{digest}'; "
        "style-src 'unsafe-inline'; "
        "img-src data:; "
        "base-uri 'none'; form-action 'none'"
    )


def _json_escape(code: int) -> str:
    r"""``\uXXXX``, or a surrogate pair of them beyond the BMP, as JSON writes a code point."""
    if code < 0x10000:
        return f"\\u{code:04x}"
    code -= 0x10000
    return f"\\u{0xD800 + (code >> 10):04x}\\u{0xDC00 + (code & 0x3FF):04x}"


_HTML_ESCAPES = (("<", "\\u003c"), (">", "\\u003e"), ("&", "\\u0026"))
# The two line separators JavaScript once treated as newlines, and every hidden character.
_SCRIPT_ESCAPES = HiddenTable(_json_escape, {0x2028: "\\u2028", 0x2029: "\\u2029"})


def json_ready(value: Any) -> Any:
    """``value`` with every non-finite float as ``None`` (``JSON.parse`` rejects ``NaN``)."""
    if isinstance(value, float) and not math.isfinite(value):
        return None
    if isinstance(value, dict):
        return {str(k): json_ready(v) for k, v in value.items()}
    if isinstance(value, list | tuple):
        return [json_ready(v) for v in value]
    return value


def script_json(value: Any) -> str:
    r"""JSON that is safe inside a ``<script>`` element: it cannot end the element early.

    ``script_json({"a": "</script>"})`` is ``{"a": "\u003c/script\u003e"}``. Hidden
    characters (:func:`~fairjudge.report._text.is_hidden`) become escapes too: a right-to-left
    override is written as the six characters ``\u202e``, never as itself.
    """
    text = json.dumps(
        json_ready(value), ensure_ascii=False, allow_nan=False, default=str, separators=(",", ":")
    )
    for char, escape in _HTML_ESCAPES:
        text = text.replace(char, escape)
    return replace_hidden(text, _SCRIPT_ESCAPES)
