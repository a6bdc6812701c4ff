"""What the compiled-engine tests assert of a launch's `Run`, in one place."""

from __future__ import annotations

from typing import Any

#: The engines a launch hands a kernel to when the compiled engine stops or declines:
#: the batched engine where it applies, else one tile block at a time.
OTHER_ENGINES = ("batched", "blocks")


def assert_engine(run: Any, engine: str) -> None:
    """`run` ran on `engine`; ``"blocks"`` means handed over after the compiled run
    stopped (a check failed, or a rounding it could not settle)."""
    assert not isinstance(run, str), run
    if engine == "blocks":
        assert run.engine in OTHER_ENGINES, run
        assert run.reason.startswith("compiled engine: a check failed"), run
    else:
        assert run.engine == engine, run


def assert_declined(run: Any, why: str) -> None:
    """The compiled engine declined `run`'s kernel, saying `why`."""
    assert run.engine in OTHER_ENGINES, run
    assert run.reason.startswith("compiled engine: ") and why in run.reason, run.reason
