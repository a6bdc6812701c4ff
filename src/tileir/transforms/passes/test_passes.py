"""Passes that exist to test utilities, as NVIDIA's ``test/lib/TestPasses.cpp`` registers
them in cuda-tile-opt.

``test-debuginfo-update-symbol-name`` renames a symbol, named by a nested specifier
(``kernels::test_func``), with the debug info that names it (`tileir.transforms.symbols.
rename_symbol`)::

    cuda-tile-opt --test-debuginfo-update-symbol-name="symbol-to-rename=kernels::f \\
        new-name=g update-uses=true" in.mlir
"""

from __future__ import annotations

from typing import Any

from ...ir import Operation
from ..registry import PassOption, failure, register
from ..symbols import lookup_symbol_in, parse_nested_symbol, rename_symbol


@register("test-debuginfo-update-symbol-name", "builtin.module",
          "Test the debuginfo utilities to update symbol names",
          (PassOption("symbol-to-rename", str, "",
                      "The symbol op to rename. Accepts a nested symbol specifier like "
                      "outer::middle::inner."),
           PassOption("scope", str, "",
                      "The scope for the rename. Accepts a nested symbol specifier like "
                      "outer::middle::inner."),
           PassOption("new-name", str, "",
                      "New name for the symbol. For outer::middle::inner, this would only "
                      "replace inner."),
           PassOption("update-uses", bool, False,
                      "If the pass should also attempt to update uses of the symbol being "
                      "renamed.")))
def test_debuginfo_update_symbol_name(module: Operation, options: dict[str, Any]) -> None:
    """Rename ``symbol-to-rename`` to ``new-name`` within ``scope`` (default: the whole
    module)."""
    scope = module
    if options["scope"]:
        scope_ref = parse_nested_symbol(options["scope"])
        scope = lookup_symbol_in(module, scope_ref)
        if scope is None:
            raise failure(f"could not find symbol op with name '{scope_ref.format()}'",
                          module)
    symbol_ref = parse_nested_symbol(options["symbol-to-rename"])
    symbol = lookup_symbol_in(module, symbol_ref)
    if symbol is None:
        raise failure(f"could not find symbol op with name '{symbol_ref.format()}'", module)
    rename_symbol(symbol, options["new-name"], scope, update_uses=options["update-uses"])
