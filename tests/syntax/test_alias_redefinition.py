"""An alias is defined once: a second definition is an error at its name, as MLIR's parser
reports it."""

from __future__ import annotations

import pytest

from tileir import ParseError, parse_document


@pytest.mark.parametrize("text, message", [
    ("!t = !cuda_tile.tile<f32>\n!t = !cuda_tile.tile<i32>\n",
     "<stdin>:2:1: error: redefinition of type alias id 't'"),
    ("#a = 1 : i32\n#a = 2 : i32\n",
     "<stdin>:2:1: error: redefinition of attribute alias id 'a'"),
    ('#loc = loc("k.py":1:2)\n#loc = loc("k.py":3:4)\n',
     "<stdin>:2:1: error: redefinition of attribute alias id 'loc'"),
])
def test_second_definition_is_an_error(text: str, message: str) -> None:
    with pytest.raises(ParseError) as caught:
        parse_document(text, "<stdin>")
    assert str(caught.value.diagnostics[0]) == message


def test_distinct_aliases_of_both_kinds_may_share_a_name() -> None:
    """Type and attribute aliases live in separate tables (``!x`` and ``#x``)."""
    assert parse_document("!x = !cuda_tile.tile<f32>\n#x = 1 : i32\n", "<stdin>") == []
