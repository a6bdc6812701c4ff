"""View ops (spec group "Views"): building tensor, partition, strided and gather views."""

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
