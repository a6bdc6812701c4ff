"""pytest plugin: ``pytest --tileir-cpu`` (or ``TILEIR_CUTILE=cpu pytest``) runs a cuTile
Python test suite on tileir's interpreter, unchanged (`tileir.cutile.switch` says what
the switch changes).  Registered with pytest when tileir is installed; it changes nothing
unless asked."""

from __future__ import annotations

from typing import Any

import pytest


def pytest_addoption(parser: Any) -> None:
    """The ``--tileir-cpu`` option."""
    group = parser.getgroup("tileir")
    group.addoption("--tileir-cpu", action="store_true", default=False,
                    help="run cuTile Python kernels on tileir's interpreter, on the CPU "
                         "(also: TILEIR_CUTILE=cpu)")


@pytest.hookimpl(tryfirst=True)
def pytest_load_initial_conftests(early_config: Any, parser: Any, args: Any) -> None:
    """Turn the switch on before any conftest imports cuTile or torch names."""
    from .switch import enable, requested
    if getattr(early_config.known_args_namespace, "tileir_cpu", False) or requested():
        enable()
