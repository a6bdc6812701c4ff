"""Signatures of `tileir fuzz` findings: normalization and exact keys."""

from __future__ import annotations

from tileir.fuzz.signatures import Signature, first_line, normalize, signature


def test_normalize_masks_names_numbers_types_and_paths():
    line = ("  error: 'cuda_tile.addf' op operand %x.3 has type tile<4x8xf32> but "
            "12 and 0x1f and -1.5e3 in @kernel ^bb2 /tmp/a/b.tileirbc:3:4  ")
    assert normalize(line) == ("error: 'cuda_tile.addf' op operand %# has type tile<#> "
                               "but # and # and # in @# ^# #:#:#")


def test_normalize_nested_view_types():
    line = "bad partition_view<tile=(2x4), tensor_view<3x6xf32, strides=[6,1]>> here"
    assert normalize(line) == "bad partition_view<#> here"


def test_normalize_keeps_words_with_digits_and_cuts_long_lines():
    assert normalize("sm_100 f8E4M3FN i64") == "sm_100 f8E4M3FN i64"
    assert len(normalize("x" * 500)) == 160


def test_signature_from_signal_or_first_line():
    assert signature("tileiras", "whatever\nelse", "SIGSEGV") == Signature("tileiras",
                                                                           "SIGSEGV")
    assert signature("roundtrip", "\n\n  line 12 of %v differs\nmore") == \
        Signature("roundtrip", "line # of %# differs")
    assert first_line("") == "(no message)"
    assert str(Signature("engines", "k")) == "engines: k"


def test_two_kernels_same_failure_share_a_signature():
    a = signature("tileiras", "error: 'cuda_tile.ftof' op %3 = tile<8xf16> failed at 17")
    b = signature("tileiras", "error: 'cuda_tile.ftof' op %a1 = tile<4x4xbf16> failed at 2")
    c = signature("tileiras", "error: 'cuda_tile.ftoi' op %3 = tile<8xf16> failed at 17")
    assert a == b and a != c


def test_slug_is_stable_and_distinct():
    s = Signature("tileiras", "error: 'cuda_tile.ftof' op failed #")
    assert s.slug() == Signature("tileiras", "error: 'cuda_tile.ftof' op failed #").slug()
    assert s.slug().startswith("tileiras-error-cuda-tile-ftof-op-failed-")
    assert s.slug() != Signature("tileiras", "error: 'cuda_tile.ftof' op failed ##").slug()
    assert Signature("engines", "???").slug().startswith("engines-x-")
