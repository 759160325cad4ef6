"""What a model judge's requests carried, for the ``--out`` header's settings.

The call's parameters (``params``) are what the store keys the call by and keeps in
each row's spec: for a model in the capability table they are exactly what was sent.
For a model the table does not know, a refused request may have taught the run to
rename or drop a parameter (:mod:`fairjudge.backends._capabilities`); the key keeps
the parameters as asked, so that a rerun finds the stored replies without paying a
refusal again, and what was actually sent is recorded here, with the lines the run
printed and the refused requests it spent.
"""

from __future__ import annotations

from typing import Any

__all__ = ["request_settings"]


def request_settings(judge: Any) -> dict[str, Any]:
    """``{"request": {...}}`` for a model judge, or ``{}`` for one that sends no request.

    ``params`` are the keyed parameters; ``sent`` what went on the wire (only when it
    differs), ``learned`` and ``refused`` what refusals taught and cost; ``samples``
    is true when every reply is a sample (a temperature above 0, a model that
    samples at 1 only and is sent no temperature, or one whose refusal of the
    temperature asked for taught the run to send none).
    """
    params = getattr(judge, "params", None)
    backend = getattr(judge, "backend", None)
    if not isinstance(params, dict) or backend is None:
        return {}
    record: dict[str, Any] = {"params": dict(params)}
    sent = getattr(backend, "sent_params", None)
    wire = sent(params) if callable(sent) else params
    if wire != params:
        record["sent"] = wire
    learned = list(getattr(backend, "changes", None) or [])
    if learned:
        record["learned"] = learned
        record["refused"] = int(getattr(backend, "refused", 0))
    temperature = params.get("temperature", getattr(backend, "fixed_temperature", None))
    if "temperature" in params and "temperature" not in wire:
        # Refused and dropped: the server samples at its own default (OpenAI's is 1, the
        # only value such a model takes), so the replies are samples whatever was asked.
        temperature = 1.0
    record["samples"] = isinstance(temperature, int | float) and temperature > 0
    return {"request": record}
