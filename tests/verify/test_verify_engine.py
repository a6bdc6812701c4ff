"""The verifier's generic checks, driven by op declarations."""

from __future__ import annotations


def test_operand_type_constraint(diagnose) -> None:
    text = """cuda_tile.module @m {
      cuda_tile.testing$func @f(%a: !cuda_tile.tile<2xf32>) {
        %0 = cuda_tile.addi %a, %a : !cuda_tile.tile<2xf32>
      }
    }"""
    [message] = diagnose(text)
    assert message.startswith("error: 'cuda_tile.addi' op operand #0 must be ")
    assert message.endswith("values, but got '!cuda_tile.tile<2xf32>'")


def test_valid_module_verifies_clean(diagnose) -> None:
    text = """cuda_tile.module @m {
      cuda_tile.entry @f() {
        %0 = cuda_tile.constant <f32: 1.0> : !cuda_tile.tile<2xf32>
        %1 = cuda_tile.addf %0, %0 : !cuda_tile.tile<2xf32>
        cuda_tile.return
      }
    }"""
    assert diagnose(text) == []
