"""Photo → BoardReading: decode, locate the grid, rectify, classify the cells, orient.

Knows nothing of scoring; the only thing it hands to `scorer` is a `BoardReading`.
"""
