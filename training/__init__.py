"""Dev-only tools that build the cell classifier: synthetic board renderer, dataset, training, export.

Not shipped in the wheel; run as `python -m training.<module>` from the repository root.
"""
