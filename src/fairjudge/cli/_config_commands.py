"""The commands a config file runs (``fairjudge run``), and which take ``--save-config``.

A module of its own so that the ``--save-config`` option, given to every such command
as it starts, and the config machinery it loads only when used, both read the one list.
"""

__all__ = ["CONFIG_COMMANDS"]

CONFIG_COMMANDS = (
    "compare", "rank", "calibrate", "score", "audit", "jury", "score-jury", "report",
)  # fmt: skip
