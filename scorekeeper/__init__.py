"""The command-line front end: composes `vision` (photo → reading) and `scorer` (reading → move)."""
