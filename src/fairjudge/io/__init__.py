"""Every reader and writer of a user's files: inputs, result files and their headers.

Readers validate the whole file before the first judge call is paid for, and every
problem names the file and its line (JSONL) or row (CSV, Parquet). Files are read
as untrusted: a regular file, UTF-8, bounded in size and depth
(:mod:`fairjudge.io._untrusted`). Writers replace a file atomically, so a crash
leaves the old file or the new one, never half of one; every ``out`` file opens
with a header record that says which command wrote it (:mod:`fairjudge.io._out_file`).

The item types themselves (:class:`~fairjudge.Item`, :class:`~fairjudge.ScoreItem`)
are core types and live with the others; this package only reads and writes them.
Names outside ``__all__`` are the surface other layers of fairjudge use.
"""

from __future__ import annotations

# Names outside __all__ are re-exported explicitly (`name as name`): the layers' surface.
from fairjudge._lazy import publish
from fairjudge.io._config_file import CONFIG_SCHEMA_VERSION as CONFIG_SCHEMA_VERSION
from fairjudge.io._config_file import ConfigText as ConfigText
from fairjudge.io._config_file import dump_config as dump_config
from fairjudge.io._config_file import read_config as read_config
from fairjudge.io._files import write_atomic
from fairjudge.io._files import write_jsonl_atomic as write_jsonl_atomic
from fairjudge.io._json import strict_dumps
from fairjudge.io._label_scores import ScoreSheet
from fairjudge.io._label_scores import is_pointwise_file as is_pointwise_file
from fairjudge.io._labels import LabelSheet
from fairjudge.io._labels import Side as Side
from fairjudge.io._labels import order_path as order_path
from fairjudge.io._labels import read_sheet_rows as read_sheet_rows
from fairjudge.io._labels import write_rows_durably as write_rows_durably
from fairjudge.io._out_file import OutHeader, read_header
from fairjudge.io._out_file import OutKind as OutKind
from fairjudge.io._out_file import out_header as out_header
from fairjudge.io._pairs import Columns, LoadedItems, load_items
from fairjudge.io._pairs import read_rows as read_rows
from fairjudge.io._rows import open_source as open_source
from fairjudge.io._rows import read_records
from fairjudge.io._scores import LoadedScoreItems, load_score_items
from fairjudge.io._untrusted import BadTOML as BadTOML
from fairjudge.io._untrusted import loads_toml as loads_toml
from fairjudge.io._untrusted import read_text as read_text
from fairjudge.io._untrusted import read_toml as read_toml
from fairjudge.io._untrusted import shown as shown

__all__ = [
    "Columns",
    "LabelSheet",
    "LoadedItems",
    "LoadedScoreItems",
    "OutHeader",
    "ScoreSheet",
    "load_items",
    "load_score_items",
    "read_header",
    "read_records",
    "strict_dumps",
    "write_atomic",
]

publish(globals())  # each public name reports this namespace (see fairjudge._lazy.publish)
