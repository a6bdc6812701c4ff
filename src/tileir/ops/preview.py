"""13.5's ``--preview=simt`` ops: calls into code outside Tile IR.

`preview$func` declares an external function (``extern``: no body), `preview$extern_impl`
names an implementation of one, and `preview$call` calls one from a kernel.  NVIDIA
documents none of them; their syntax and records follow tileirdisasm 13.5 (docs/preview.md).
The two function-like ops are function records in bytecode (no opcode).
"""

from .registry import op

G = "Preview"

op("preview$func", "13.5", None, G,
   attrs="sym_name:sym function_type:type arg_attrs:dicts? res_attrs:dicts? "
         "const_params:array?",
   regions="body:max", traits="FunctionOpInterface Symbol IsolatedFromAbove",
   custom="preview_func", default_dialect=True,
   summary="an external function a kernel may call (an extern declaration)")
op("preview$extern_impl", "13.5", None, G,
   attrs="sym_name:sym implements:symref const_params:array? const_args:array? "
         "function_type:type arg_attrs:dicts? res_attrs:dicts? scratch_smem:scratch? "
         "config:dict? arch:array? frontendABI:dict? synchronization:sync? "
         "provider_score:i64?",
   regions="body:none", traits="FunctionOpInterface Symbol IsolatedFromAbove",
   custom="preview_extern_impl", default_dialect=True,
   summary="an implementation of a preview$func, outside Tile IR")
op("preview$call", "13.5", 16386, G, operands="args:any*", results="results:any*",
   attrs="callee:symref const_args:array arg_attrs:dicts? res_attrs:dicts?",
   traits="SymbolUserOpInterface", custom="preview_call",
   summary="call an extern preview$func")
