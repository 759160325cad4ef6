"""Every reader and writer of a user's files: inputs, result files and their headers.

Readers validate the whole file before the first judge call is paid for, and every
problem names the file and its line (JSONL) or row (CSV, Parquet). Files are read
as untrusted: a regular file, UTF-8, bounded in size and depth
(:mod:`fairjudge.io._untrusted`). Writers replace a file atomically, so a crash
leaves the old file or the new one, never half of one; every ``out`` file opens
with a header record that says which command wrote it (:mod:`fairjudge.io._out_file`).

The item types themselves (:class:`~fairjudge.Item`, :class:`~fairjudge.ScoreItem`)
are core types and live with the others; this package only reads and writes them.
Other packages use only the names in ``__all__``.
"""

from __future__ import annotations

from fairjudge._lazy import package_surface
from fairjudge.io._config_file import ConfigText, dump_config, read_config
from fairjudge.io._labels import (
    LabelSheet,
    ScoreSheet,
    Side,
    is_pointwise_file,
    order_path,
    read_sheet_rows,
    write_rows_durably,
)
from fairjudge.io._out_file import (
    OutHeader,
    OutKind,
    check_writable,
    out_header,
    read_header,
    strict_dumps,
    write_atomic,
    write_jsonl_atomic,
)
from fairjudge.io._pairs import Columns, LoadedItems, check_renamed, load_items, read_rows
from fairjudge.io._rows import open_source, read_records
from fairjudge.io._scores import LoadedScoreItems, load_score_items
from fairjudge.io._untrusted import BadTOML, loads_toml, read_text, read_toml, shown

__all__ = [
    "BadTOML",
    "Columns",
    "ConfigText",
    "LabelSheet",
    "LoadedItems",
    "LoadedScoreItems",
    "OutHeader",
    "OutKind",
    "ScoreSheet",
    "Side",
    "check_renamed",
    "check_writable",
    "dump_config",
    "is_pointwise_file",
    "load_items",
    "load_score_items",
    "loads_toml",
    "open_source",
    "order_path",
    "out_header",
    "read_config",
    "read_header",
    "read_records",
    "read_rows",
    "read_sheet_rows",
    "read_text",
    "read_toml",
    "shown",
    "strict_dumps",
    "write_atomic",
    "write_jsonl_atomic",
    "write_rows_durably",
]

package_surface(globals())
