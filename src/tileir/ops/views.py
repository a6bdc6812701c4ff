"""View ops (spec group "Views"): building tensor, partition, strided and gather views, and
the loads, stores and 13.5 multimem accesses through them."""

from .naming import fixed
from .registry import op

G = "Views"

op("make_tensor_view", "13.1", 0x43, G,
   operands="base:s_ptr dynamicShape:s_i* dynamicStrides:s_i*", results="result:tv",
   traits="AttrSizedOperandSegments NoMemoryEffect AsmNames", custom="make_tensor_view",
   names=fixed("tview"))
op("make_partition_view", "13.1", 0x42, G, operands="tensor_view:tv", results="result:pv",
   traits="Pure AsmNames", custom="make_view", names=fixed("pview"))
op("make_strided_view", "13.3", 0x74, G, operands="tensor_view:tv", results="result:sv",
   traits="Pure AsmNames", custom="make_view", names=fixed("sview"))
op("make_gather_scatter_view", "13.3", 0x73, G, operands="tensor_view:tv@13.1",
   results="result:gsv", traits="Pure AsmNames", custom="make_view", names=fixed("gsview"))
op("get_tensor_shape", "13.1", 0x2F, G, operands="src:tv", results="result:s_i*",
   traits="NoMemoryEffect", custom="get_shape")
op("get_index_space_shape", "13.1", 0x2D, G, operands="src:view", results="result:s_i*",
   traits="NoMemoryEffect", custom="get_shape")
op("load_view_tko", "13.1", 0x3E, G, operands="view:view index:iN* token:token?",
   results="tile:tile result_token:token",
   attrs="memory_ordering_semantics:mem_order memory_scope:mem_scope? "
         "optimization_hints:hints? inbounds:boolarr?@13.4",
   traits="AttrSizedOperandSegments AsmNames",
   custom="load_view",
   names=fixed("tile", "result_token"))
op("store_view_tko", "13.1", 0x66, G,
   operands="tile:tile view:view index:iN* token:token?", results="result_token:token",
   attrs="memory_ordering_semantics:mem_order memory_scope:mem_scope? "
         "optimization_hints:hints? inbounds:boolarr?@13.4",
   traits="AttrSizedOperandSegments",
   custom="store_view")

# 13.5: multimem accesses through a multicast-backed partition view (every GPU of an
# NVSwitch fabric holding the multicast memory at once).
op("multimem_load_reduce_view_tko", "13.5", 123, G,
   operands="view:view index:iN* token:token?",
   results="reduced_values:tile result_token:token",
   attrs="memory_ordering_semantics:mem_order memory_scope:mem_scope? "
         "reduction:mm_reduction=add inbounds:boolarr?",
   traits="AttrSizedOperandSegments AsmNames", custom="multimem_load_reduce",
   names=fixed("reduced_values", "result_token"),
   summary="load a tile from every destination of a multicast view, reduced elementwise")
op("multimem_reduce_view_tko", "13.5", 124, G,
   operands="view:view tile:tile index:iN* token:token?", results="result_token:token",
   attrs="memory_ordering_semantics:mem_order memory_scope:mem_scope "
         "reduction:mm_reduction=add inbounds:boolarr?",
   traits="AttrSizedOperandSegments", custom="multimem_reduce",
   summary="reduce a tile atomically into every destination of a multicast view")
op("multimem_store_view_tko", "13.5", 125, G,
   operands="view:view tile:tile index:iN* token:token?", results="result_token:token",
   attrs="memory_ordering_semantics:mem_order memory_scope:mem_scope? inbounds:boolarr?",
   traits="AttrSizedOperandSegments", custom="multimem_store",
   summary="store the same tile to every destination of a multicast view")
