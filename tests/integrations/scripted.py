"""Scripted Inspect mock models for the scorer tests: no network, no paid call.

Inspect's ``mockllm/model`` answers from ``custom_outputs``. Every output here carries
its token usage: without it, the mock counts tokens with tiktoken, whose encoding
file is downloaded on first use, and tests never touch the internet.

The judge reads the two answers back out of the rendered fairjudge prompt, records
each call (so a test can check the two orders), and answers by a rule per question.
"""

from __future__ import annotations

import re
from collections.abc import Callable
from dataclasses import dataclass, field

from inspect_ai.model import ChatMessage, GenerateConfig, ModelOutput, ModelUsage
from inspect_ai.tool import ToolChoice, ToolInfo

_BLOCK = r"<{0}>\n(.*?)\n</{0}>"


def output(text: str) -> ModelOutput:
    """A mock output with its usage filled in (so the mock counts no tokens itself)."""
    out = ModelOutput.from_content(model="mockllm/model", content=text)
    out.usage = ModelUsage(input_tokens=20, output_tokens=1, total_tokens=21)
    return out


def block(text: str, name: str) -> str:
    match = re.search(_BLOCK.format(name), text, re.S)
    assert match is not None, f"no <{name}> block in the prompt: {text!r}"
    return match.group(1)


Outputs = Callable[[list[ChatMessage], list[ToolInfo], ToolChoice, GenerateConfig], ModelOutput]


def answering(answers: dict[str, str]) -> Outputs:
    """The evaluated model: the answer scripted for each question (the prompt's text)."""

    def reply(messages: list[ChatMessage], *_: object) -> ModelOutput:
        return output(answers[messages[-1].text])

    return reply


@dataclass(frozen=True)
class SeenCall:
    question: str
    answer_a: str
    answer_b: str


@dataclass
class PairJudge:
    """A judge that prefers the longer answer, unless a question's rule says otherwise.

    ``rules`` maps a question to ``"first"`` (always ``A``: pure position bias) or
    ``"garbage-swapped"`` (reads the original order, replies prose to the swapped one).
    """

    rules: dict[str, str] = field(default_factory=dict)
    calls: list[SeenCall] = field(default_factory=list)

    def __call__(self, messages: list[ChatMessage], *_: object) -> ModelOutput:
        prompt = messages[-1].text
        seen = SeenCall(
            block(prompt, "question"), block(prompt, "answer_a"), block(prompt, "answer_b")
        )
        earlier = [c for c in self.calls if c.question == seen.question]
        self.calls.append(seen)
        rule = self.rules.get(seen.question)
        if rule == "first":
            return output("A")
        if rule == "garbage-swapped" and earlier:
            return output("Both answers have merits; hard to say.")
        return output("A" if len(seen.answer_a) > len(seen.answer_b) else "B")

    def calls_on(self, question: str) -> list[SeenCall]:
        return [c for c in self.calls if c.question == question]
