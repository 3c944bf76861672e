"""Usage errors that say what was meant: an unknown option is named, before any missing one, with
the closest known option (``--platfrom`` -> ``--platform``), and a value outside a list of
choices gets the closest choice (``--engine embeded`` -> ``embedded``). Exit status 2, as
argparse's own usage errors.
"""

from __future__ import annotations

import argparse
import difflib
import re
import sys
from collections.abc import Iterable, Sequence
from typing import NoReturn

from adaptsched.limits import shown

_NEGATIVE_NUMBER = re.compile(r"^-\d+$|^-\d*\.\d+$")
_INVALID_CHOICE = re.compile(r"invalid choice: (.*?) \(choose from (.*)\)$")


def close_match(word: str, candidates: Iterable[str]) -> str | None:
    """The candidate closest to ``word`` if one is close enough (difflib's ratio 0.6), else None.

    >>> close_match("eazy", ["fcfs", "easy", "conservative"]), close_match("zzz", ["easy"])
    ('easy', None)
    """
    found = difflib.get_close_matches(word, list(candidates), n=1, cutoff=0.6)
    return found[0] if found else None


def did_you_mean(word: str, candidates: Iterable[str], quote: str = "'") -> str:
    """`` (did you mean 'X'?)`` for the closest candidate, or ``""``."""
    match = close_match(word, candidates)
    return f" (did you mean {quote}{match}{quote}?)" if match else ""


class Parser(argparse.ArgumentParser):
    """argparse's parser, with a usage error that names an unknown option first (argparse reports
    a missing required one instead, when both are wrong) and suggests the closest option or
    choice. Sub-commands' parsers are of this class too (argparse makes them of their parent's)."""

    _given: Sequence[str] = ()

    def parse_known_args(  # type: ignore[override]
        self, args: Sequence[str] | None = None, namespace: argparse.Namespace | None = None
    ) -> tuple[argparse.Namespace, list[str]]:
        self._given = list(sys.argv[1:] if args is None else args)
        parsed, extras = super().parse_known_args(args, namespace)
        if extras:  # each parser reports its own unknown arguments, with its own options
            self.error(f"unrecognized arguments: {' '.join(extras)}")
        return parsed, extras

    def error(self, message: str) -> NoReturn:
        unknown = self.unknown_options()
        if unknown and not message.startswith(("argument ", "ambiguous option")):
            message = "; ".join(
                f"unknown option {shown(word, 40) if len(word) > 40 else word}" + self.suggestion(word)
                for word in unknown
            )
        else:
            message = self.with_choice(message)
        self.print_usage(sys.stderr)
        self.exit(2, f"{self.prog}: error: {message}\n")

    def long_options(self) -> list[str]:
        return [option for option in self._option_string_actions if option.startswith("--")]

    def suggestion(self, word: str) -> str:
        """`` (did you mean --X?)``, matching names without their dashes (``--foo`` is not ``--option``)."""
        names = {option.lstrip("-"): option for option in self.long_options()}
        match = close_match(word.lstrip("-"), names)
        return f" (did you mean {names[match]}?)" if match else ""

    def unknown_options(self) -> list[str]:
        """The options given that this parser does not know (nor as a unique abbreviation)."""
        known = self._option_string_actions
        unknown = []
        for word in self._given:
            if word == "--":
                break
            if not word.startswith("-") or word == "-" or _NEGATIVE_NUMBER.match(word):
                continue
            name = word.split("=", 1)[0]
            if name in known:
                continue
            if not name.startswith("--") or not any(option.startswith(name) for option in known):
                unknown.append(name)  # (an abbreviation of several is argparse's "ambiguous option")
        return unknown

    @staticmethod
    def with_choice(message: str) -> str:
        """argparse's "invalid choice" message, shortened and with the closest choice."""
        match = _INVALID_CHOICE.search(message)
        if not match:
            return message
        word = match.group(1).strip("'")
        choices = re.findall(r"'([^']*)'", match.group(2))
        head = message[: match.start()]
        return f"{head}invalid choice: {shown(word)}{did_you_mean(word, choices)}; choose from {', '.join(choices)}"
