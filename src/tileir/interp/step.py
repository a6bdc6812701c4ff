"""What an op's semantics function sees while it runs: the op, the tile block, the checks."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from ..diagnostics import ExecutionError, error, note
from ..enums import Signedness
from ..ir import Operation
from ..ir import location_of


@dataclass
class Step:
    """One op being executed by one tile block.

    `op` gives attributes (``op.attr``, ``op.enum``, ``op.has_flag``) and result types;
    `checks` says whether undefined behaviour must be detected (then `fail` reports it);
    `machine` is the running machine (memory, regions, printing) for the ops that need it;
    `plan` what the machine read once from the op (its operand groups: `common.step_slices`).
    """

    op: Operation
    block_id: tuple[int, int, int] = (0, 0, 0)
    grid: tuple[int, int, int] = (1, 1, 1)
    checks: bool = True
    machine: Any = field(default=None, repr=False)
    #: The op's `tileir.interp.plan.OpPlan` when a machine runs it from a plan.
    plan: Any = field(default=None, repr=False, compare=False)

    def fail(self, message: str) -> ExecutionError:
        """Undefined behaviour (or an impossible run): an error naming the op, its source
        location and the tile block, for the caller to raise."""
        block = ", ".join(str(i) for i in self.block_id)
        return ExecutionError(error(f"'{self.op.name}' op {message} (tile block ({block}))",
                                    location_of(self.op)))

    def undefined(self, message: str, rule: str) -> ExecutionError:
        """Undefined behaviour of the kernel: `fail`'s error, with a note saying that the
        kernel is at fault and the spec's `rule` it breaks (a GPU reports nothing and may
        compute anything, which is why tileir stops)."""
        failure = self.fail(message)
        diagnostic = failure.diagnostics[0]
        why = note(f"undefined behaviour in the kernel: {rule}; a GPU reports nothing here "
                   "and its result may be anything (launch with checks=False to compute it "
                   "anyway)", diagnostic.location)
        # (the same exception class as `fail`'s: the batched engine's reruns on it)
        return type(failure)(error(diagnostic.message, diagnostic.location, (why,)))

    def result_type(self, index: int = 0) -> Any:
        """The declared type of result `index`."""
        return self.op.results[index].type

    def element_type(self, operand: int | None = None) -> Any:
        """The element type of operand `operand` (None: of the first result)."""
        if operand is None:
            return self.result_type(0).element_type
        return self.op.operands[operand].type.element_type

    def signed(self, name: str = "signedness") -> bool:
        """Whether the op's signedness attribute `name` reads integers as signed."""
        return self.op.enum(name) == Signedness.SIGNED
