"""Run the scripted judge as its own process: ``python -m tests.server --help``.

Prints ``listening on http://HOST:PORT/v1`` once it accepts connections (so a parent
can pass ``--port 0`` and read the port), then serves until SIGTERM or SIGINT.
"""

from __future__ import annotations

import argparse
import asyncio
import signal

from tests.server._http import serve_forever
from tests.server._script import DEFAULT_API_KEY, JUDGES, Fault, Script


def _fault(text: str) -> tuple[str, float]:
    name, _, rate = text.partition("=")
    if name not in set(Fault) or not rate:
        raise argparse.ArgumentTypeError(
            f"expected NAME=RATE with NAME in {[str(f) for f in Fault]}"
        )
    return name, float(rate)


def parse_args(argv: list[str] | None = None) -> tuple[Script, argparse.Namespace]:
    parser = argparse.ArgumentParser(prog="python -m tests.server", description=__doc__)
    parser.add_argument("--host", default="127.0.0.1")
    parser.add_argument("--port", type=int, default=0, help="0 picks a free port")
    parser.add_argument("--backlog", type=int, default=4096)
    parser.add_argument("--judge", default="always_a", choices=[*JUDGES, "correct"])
    parser.add_argument("--correct", help="marker string in the correct answer (judge=correct)")
    parser.add_argument("--latency", type=float, default=0.0, help="seconds per chat request")
    parser.add_argument("--fault", type=_fault, action="append", default=[], metavar="NAME=RATE")
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--retry-after", default="1")
    parser.add_argument("--hang", type=float, default=3600.0, help="seconds a hang lasts")
    parser.add_argument("--no-logprobs", action="store_true", help="ignore logprob requests")
    parser.add_argument("--reject-logprobs", action="store_true", help="400 on logprob requests")
    parser.add_argument("--confidence", type=float, default=0.9)
    parser.add_argument("--reply-format", default="{verdict}")
    parser.add_argument("--api-key", default=DEFAULT_API_KEY, help="'' accepts any key")
    parser.add_argument(
        "--usage-scale", type=float, help="report usage as this multiple of the client's guess"
    )
    args = parser.parse_args(argv)
    script = Script(
        judge=args.judge,
        correct=args.correct,
        latency=args.latency,
        faults=dict(args.fault),
        seed=args.seed,
        retry_after=args.retry_after,
        hang_s=args.hang,
        logprobs=not args.no_logprobs,
        reject_logprobs=args.reject_logprobs,
        confidence=args.confidence,
        reply_format=args.reply_format,
        api_key=args.api_key or None,
        usage_scale=args.usage_scale,
    )
    return script, args


async def _main(script: Script, args: argparse.Namespace) -> None:
    stop = asyncio.Event()
    loop = asyncio.get_running_loop()
    for sig in (signal.SIGTERM, signal.SIGINT):
        loop.add_signal_handler(sig, stop.set)
    await serve_forever(script, args.host, args.port, args.backlog, stop)


if __name__ == "__main__":
    asyncio.run(_main(*parse_args()))
