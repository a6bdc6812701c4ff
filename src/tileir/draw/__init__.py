"""Pictures of what a tiled view covers: which tile index covers each element of its
tensor (`coverage`), drawn for a terminal, as SVG, or as PNG (with Pillow)."""

from .coverage import Cell, Coverage, CoverageError, Grid, coverage_map, tile_start

__all__ = ["Cell", "Coverage", "CoverageError", "Grid", "coverage_map", "tile_start"]
