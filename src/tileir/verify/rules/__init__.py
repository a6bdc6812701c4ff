"""Op-specific verifiers, one module per op group (mirroring `tileir.ops`).

Importing this package registers every check with `tileir.verify.registry.verifier`.
"""

from . import (atomics, control_flow, conversion, core, floating_point,  # noqa: F401
               integer, memory, misc, preview, views)
