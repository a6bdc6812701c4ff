"""The passes, one module each; importing this package registers them all
(`tileir.transforms.registry.PASSES`)."""

from __future__ import annotations

import importlib
import pkgutil

for _module in pkgutil.iter_modules(__path__):
    importlib.import_module(f"{__name__}.{_module.name}")
