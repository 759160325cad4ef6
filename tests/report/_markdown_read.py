"""Read a Markdown summary back as a pull request would show it (markdown-it-py).

markdown-it-py comes with rich; CommonMark with GitHub's tables switched on reads the
summary as GitHub does for everything the summary uses.
"""

from __future__ import annotations

from dataclasses import dataclass

from markdown_it import MarkdownIt
from markdown_it.token import Token

_PARSER = MarkdownIt("commonmark").enable(["table", "strikethrough"])


def _text(token: Token) -> str:
    """An inline token's text as shown: escapes resolved, no markup."""
    parts = []
    for child in token.children or []:
        if child.type in ("text", "code_inline"):
            parts.append(child.content)
        elif child.type in ("softbreak", "hardbreak"):
            parts.append(" ")
    return "".join(parts)


@dataclass
class Read:
    """What a reader sees: the bold conclusion, paragraphs, tables, and every token type."""

    bold: list[str]
    paragraphs: list[str]
    tables: list[list[list[str]]]
    token_types: set[str]


def read(markdown: str) -> Read:
    tokens = _PARSER.parse(markdown)
    bold: list[str] = []
    paragraphs: list[str] = []
    tables: list[list[list[str]]] = []
    types: set[str] = set()
    row: list[str] = []
    in_cell = in_paragraph = False
    for tok in tokens:
        types.add(tok.type)
        for child in tok.children or []:
            types.add(child.type)
        if tok.type == "table_open":
            tables.append([])
        elif tok.type == "tr_open":
            row = []
        elif tok.type == "tr_close":
            tables[-1].append(row)
        elif tok.type in ("th_open", "td_open"):
            in_cell = True
        elif tok.type in ("th_close", "td_close"):
            in_cell = False
        elif tok.type == "paragraph_open":
            in_paragraph = True
        elif tok.type == "paragraph_close":
            in_paragraph = False
        elif tok.type == "inline":
            if in_cell:
                row.append(_text(tok))
            elif in_paragraph:
                paragraphs.append(_text(tok))
                kids = [c.type for c in tok.children or [] if c.type != "text" or c.content]
                if kids[:1] == ["strong_open"] and kids[-1:] == ["strong_close"]:
                    bold.append(_text(tok))
    return Read(bold, paragraphs, tables, types)


def counts(markdown: str) -> dict[str, str]:
    """The verdict counts: the first table, its header over its one row."""
    header, values = read(markdown).tables[0]
    return dict(zip(header, values, strict=True))
