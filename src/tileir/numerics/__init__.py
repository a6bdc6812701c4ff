"""Element numerics exact to the bit: formats, rounding, conversions, packing and encodings.

Every conversion and arithmetic op of the interpreter is built on these functions,
so their results are the spec's, not NumPy's or ml_dtypes' defaults.
"""

from .convert import (as_signed, as_unsigned, convert_float, extend_int, float_format,
                      float_to_int, float_to_int_undefined, flush_subnormals, from_bits,
                      from_float64, from_integers, from_words, int_range, int_to_float,
                      round_to_tf32, to_bits, to_float64, to_words, truncate_int,
                      truncation_loses_value, unsigned_int)
from .encoding import (ENCODINGS, POINTER_DTYPE, DLDataTypeCode, ElementEncoding,
                       accepts_dlpack, cuda_c_name, dlpack_type, element_type_of_dtype,
                       numpy_dtype, torch_dtype_names)
from .formats import (CONVERSION_ROUNDINGS, FORMATS, FloatFormat, Specials, decode, encode,
                      is_subnormal_word)
from .packing import pack, packed_bits, unpack

__all__ = [
    "CONVERSION_ROUNDINGS", "DLDataTypeCode", "ENCODINGS", "ElementEncoding", "FORMATS",
    "FloatFormat", "POINTER_DTYPE", "Specials", "accepts_dlpack", "as_signed", "as_unsigned",
    "convert_float", "cuda_c_name", "decode", "dlpack_type", "element_type_of_dtype", "encode",
    "extend_int", "float_format", "float_to_int", "float_to_int_undefined", "flush_subnormals",
    "from_bits", "from_float64", "from_integers", "from_words", "int_range", "int_to_float",
    "is_subnormal_word", "numpy_dtype", "pack", "packed_bits", "round_to_tf32", "to_bits",
    "to_float64", "to_words", "torch_dtype_names", "truncate_int", "truncation_loses_value",
    "unpack", "unsigned_int",
]
