"""MLIR's ``-verify-diagnostics``: match the diagnostics a run produced against the
``expected-error {{...}}`` comments in its source.

Designators follow MLIR: ``expected-(error|warning|note|remark)``, with ``-re`` for text
holding ``{{regex}}`` pieces, and an optional ``@+N``, ``@-N``, ``@above``, ``@below`` or
``@unknown``.  A diagnostic matches an expectation of the same severity on its line whose
text it contains (the first such; a diagnostic in another file matches nothing); each
diagnostic that matches nothing, and each expectation that nothing matched, is a failure
reported as MLIR reports it.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from typing import Iterable, Sequence

from ..diagnostics import Diagnostic, Location, Severity, error

_DESIGNATOR = re.compile(
    r"expected-(error|warning|note|remark)(-re)? *(@([+-][0-9]+|above|below|unknown))? *"
    r"\{\{(.*)\}\}$")


@dataclass
class Expectation:
    """One ``expected-*`` comment: what it wants, and where."""

    severity: Severity
    line: int | None            # None for @unknown
    text: str
    is_regex: bool
    at: Location                # where the comment itself is, for "was not produced"
    matched: bool = field(default=False)

    def matches(self, message: str) -> bool:
        """Whether `message` holds the expected text (or matches it, with ``-re``)."""
        if not self.is_regex:
            return self.text in message
        return re.search(_regex_of(self.text), message) is not None


def _regex_of(text: str) -> str:
    """MLIR's -re syntax: literal text with ``{{regex}}`` pieces."""
    parts, pos = [], 0
    while pos < len(text):
        start = text.find("{{", pos)
        if start < 0:
            parts.append(re.escape(text[pos:]))
            break
        parts.append(re.escape(text[pos:start]))
        end = text.find("}}", start + 2)
        if end < 0:
            parts.append(re.escape(text[start:]))
            break
        parts.append(f"(?:{text[start + 2:end]})")
        pos = end + 2
    return "".join(parts)


def parse_expectations(text: str, filename: str, first_line: int = 1) -> list[Expectation]:
    """The expectations written in `text`, whose first line is line `first_line` of
    `filename`."""
    lines = text.splitlines()
    expectations: list[Expectation] = []
    pending_below: list[Expectation] = []
    last_plain_line: int | None = None
    for index, line in enumerate(lines):
        number = first_line + index
        match = _DESIGNATOR.search(line.rstrip())  # one per line, ending the line, as MLIR
        if match is None:
            for expectation in pending_below:
                expectation.line = number
            pending_below.clear()
            last_plain_line = number
            continue
        offset = match.group(4)
        expectation = Expectation(Severity(match.group(1)), number, match.group(5),
                                  bool(match.group(2)), Location(filename, number,
                                                                 match.start() + 1))
        if offset == "unknown":
            expectation.line = None
        elif offset == "below":
            pending_below.append(expectation)
        elif offset == "above":
            expectation.line = last_plain_line if last_plain_line is not None else 0
        elif offset is not None:
            expectation.line = number + int(offset)
        expectations.append(expectation)
    for expectation in pending_below:  # nothing below: MLIR points past the end
        expectation.line = first_line + len(lines)
    return expectations


def _flatten(diagnostics: Iterable[Diagnostic]) -> list[Diagnostic]:
    """Each diagnostic followed by its notes, as MLIR's handler sees them."""
    flat: list[Diagnostic] = []
    for diagnostic in diagnostics:
        flat.append(diagnostic)
        flat.extend(_flatten(diagnostic.notes))
    return flat


def check(diagnostics: Sequence[Diagnostic], expectations: Sequence[Expectation],
          filename: str) -> list[Diagnostic]:
    """The failures of a run: unexpected diagnostics and unmet expectations (empty when
    everything matched)."""
    failures: list[Diagnostic] = []
    for diagnostic in _flatten(diagnostics):
        location = diagnostic.location
        if location is not None and location.file != filename:
            failures.append(error(f"unexpected {diagnostic.severity.value}: "
                                  f"{diagnostic.message}", location))
            continue
        line = location.line if location is not None else None
        near_miss = None
        for expectation in expectations:  # the first match takes it, as in MLIR
            if expectation.line == line and expectation.matches(diagnostic.message):
                if expectation.severity is diagnostic.severity:
                    expectation.matched = True
                    break
                near_miss = expectation
        else:
            if near_miss is not None:  # reported at the expectation, which stays unmet
                failures.append(error(
                    f"'{diagnostic.severity.value}' diagnostic emitted when expecting a "
                    f"'{near_miss.severity.value}'", near_miss.at))
            else:
                failures.append(error(f"unexpected {diagnostic.severity.value}: "
                                      f"{diagnostic.message}", location))
    for expectation in expectations:
        if not expectation.matched:
            kind = expectation.severity.value
            failures.append(error(f'expected {kind} "{expectation.text}" was not produced',
                                  expectation.at))
    return failures
