"""The small words of messages, as the engine's (src/result/message_words.hpp): a count with its
noun, singular for exactly one ("1 result", "0 results", "2 results"), so no message says
"1 results"."""

from typing import Optional


def counted(n: int, singular: str, plural: Optional[str] = None) -> str:
    """``"1 result"``, ``"3 results"``; `plural` for nouns that do not take an "s"."""
    if n == 1:
        return f"{n} {singular}"
    return f"{n} {plural if plural is not None else singular + 's'}"
