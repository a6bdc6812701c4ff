"""``reduce`` and ``scan`` (spec group "Core"): ops whose meaning is a region.

The body is a binary function over scalars (block arguments ``elem_i, acc_i`` per input,
interleaved).  It is run vectorized: its block arguments are bound to whole arrays of
elements (one lane per independent combination), which the elementwise semantics accept
as extra leading axes.

Order of combination (the spec leaves it unspecified but deterministic):
* ``reduce``: a pairwise tree along `dim`: at each level element ``2k+1`` is combined
  into accumulator ``2k``; an odd level is padded with the identity.  The identity is
  not otherwise applied.
* ``scan``: first element 0 becomes ``f(elem=x[0], acc=identity)`` (the spec's
  ``result[0] = f(identity, X[0])``: the identity enters every prefix exactly once, which
  matters when it is not an exact identity, e.g. ``addf`` with ``+0.0`` turns ``-0.0``
  into ``+0.0``); then an inclusive Hillis-Steele scan: at distance ``d = 1, 2, 4, ...``
  element ``j`` becomes ``f(elem=x[j], acc=x[j-d])`` for ``j >= d`` (reversed along `dim`
  when ``reverse``).
"""

from __future__ import annotations

from typing import Any, Sequence

import numpy as np

from ..step import Step
from ..values import RegionExit
from .control_flow import results_of
from .common import element_array
from .registry import semantics


def identity_values(step: Step) -> list[np.ndarray]:
    """The ``identities`` attribute as one scalar array per input, in its element type."""
    return [element_array([getattr(attr, "bits", getattr(attr, "value", 0))],
                          operand.type.element_type).reshape(())
            for attr, operand in zip(step.op.attr("identities").elements, step.op.operands)]


def combine(step: Step, elements: Sequence[np.ndarray], accumulators: Sequence[np.ndarray]
            ) -> list[np.ndarray]:
    """Run the body on arrays of (element, accumulator) pairs; the yielded values."""
    args: list[np.ndarray] = []
    for e, a in zip(elements, accumulators):
        args += [e, a]
    kind, out = step.machine.run_region(step.op.regions[0], args, batched=True)
    if kind != "yield":
        raise RegionExit(kind, out)
    shape = np.broadcast_shapes(*(np.shape(e) for e in elements))
    return [np.broadcast_to(np.asarray(v).astype(e.dtype, copy=False), shape)
            for v, e in zip(out, elements)]


@semantics("reduce")
def reduce(step: Step, *operands: np.ndarray) -> Any:
    """Reduce every input along `dim` with the body, combining pairwise as a tree."""
    dim = int(step.op.attr("dim").value) - step.op.operands[0].type.rank  # from the end
    lanes = [np.moveaxis(x, dim, -1) for x in operands]
    identities = identity_values(step)
    while lanes[0].shape[-1] > 1:
        if lanes[0].shape[-1] % 2:
            lanes = [np.concatenate([x, np.broadcast_to(i, x.shape[:-1] + (1,))], axis=-1)
                     for x, i in zip(lanes, identities)]
        lanes = combine(step, [x[..., 1::2] for x in lanes], [x[..., 0::2] for x in lanes])
    out = [np.array(x[..., 0]) for x in lanes]
    return results_of(step, out)


@semantics("scan")
def scan(step: Step, *operands: np.ndarray) -> Any:
    """Inclusive prefix of every input along `dim` with the body: the identity combined
    into the first element, then Hillis-Steele order."""
    dim = int(step.op.attr("dim").value) - step.op.operands[0].type.rank
    reverse = bool(step.op.attr("reverse").value)
    lanes = [np.moveaxis(x, dim, -1) for x in operands]
    if reverse:
        lanes = [x[..., ::-1] for x in lanes]
    lanes = [np.array(x) for x in lanes]
    n = lanes[0].shape[-1]
    if n:  # result[0] = f(identity, X[0]): the accumulator starts at the identity
        heads = [x[..., :1] for x in lanes]
        starts = [np.broadcast_to(i, h.shape) for i, h in zip(identity_values(step), heads)]
        for x, v in zip(lanes, combine(step, heads, starts)):
            x[..., :1] = v
    distance = 1
    while distance < n:
        new = combine(step, [x[..., distance:] for x in lanes],
                      [x[..., :-distance] for x in lanes])
        for x, v in zip(lanes, new):
            x[..., distance:] = v
        distance *= 2
    if reverse:
        lanes = [x[..., ::-1] for x in lanes]
    out = [np.ascontiguousarray(np.moveaxis(x, -1, dim)) for x in lanes]
    return results_of(step, out)
