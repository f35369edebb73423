"""The variant a command plays: a shipped one by name (`--variant`) or a player's own edition
from its file (`--variant-file`, `scorer.variant.parse_variant`), one of the two required."""

from __future__ import annotations

import argparse
from pathlib import Path

from scorer.variant import Variant, VariantError, load_variant, parse_variant, variant_names


def add_variant_arguments(parser: argparse.ArgumentParser) -> None:
    """`--variant NAME` or `--variant-file FILE`, exactly one."""
    choice = parser.add_mutually_exclusive_group(required=True)
    choice.add_argument("--variant", choices=variant_names())
    choice.add_argument(
        "--variant-file",
        metavar="FILE",
        help="a variant of your own: a TOML file as in scorer/data/variants/, its layout a "
        "shipped layout's name or its own rows of = - \" ' * + . (any size, 5 to 25 a side)",
    )


def chosen_variant(args: argparse.Namespace) -> Variant:
    """The variant the arguments name; raises `VariantError` for a file that cannot be read or
    is not a variant file, naming the file."""
    if args.variant_file is None:
        return load_variant(args.variant)
    path = Path(args.variant_file)
    try:
        text = path.read_text(encoding="utf-8")
    except (OSError, UnicodeDecodeError) as exc:
        raise VariantError(f"{path}: cannot read the variant file: {exc}") from exc
    return parse_variant(text, str(path))
