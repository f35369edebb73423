"""`scorekeeper read`: read the board in one or more photos and print it (DESIGN.md §5).

Text output is the board text; `--json` prints one object per photo and line. A photo that cannot
be read gets an error object (or nothing in text mode), a one-line reason on stderr, exit code 2.
"""

from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path
from typing import TYPE_CHECKING

from scorekeeper.variants import add_variant_arguments, chosen_variant
from scorer.variant import Variant, VariantError

if TYPE_CHECKING:
    from vision.reading import BoardReading


def add_parser(subparsers: argparse._SubParsersAction) -> None:
    parser = subparsers.add_parser(
        "read",
        help="read the board in photos",
        description="Find the board in each photo and print it as board text, a line a row "
        "('.' empty, a letter a tile, '?' a blank), boards of several photos separated by an "
        "empty line. With several photos and --overlay, the "
        "pictures are written as OUT-1.png, OUT-2.png, ... in the order of the photos.",
    )
    parser.add_argument("photos", nargs="+", metavar="PHOTO")
    add_variant_arguments(parser)
    parser.add_argument("--json", action="store_true", help="one JSON object per photo and line")
    parser.add_argument(
        "--overlay", metavar="OUT.png", help="write a check picture: the grid and letters read"
    )
    parser.set_defaults(run=run)


def overlay_paths(base: str, count: int) -> list[Path]:
    """Where the overlays go: `base` itself for one photo, `<stem>-<n><suffix>` for several.

    >>> [str(p) for p in overlay_paths("out.png", 2)]
    ['out-1.png', 'out-2.png']
    """
    path = Path(base)
    if count == 1:
        return [path]
    suffix = path.suffix or ".png"
    return [path.with_name(f"{path.stem}-{n}{suffix}") for n in range(1, count + 1)]


def run(args: argparse.Namespace) -> int:
    # Imported here so that other commands do not pay for OpenCV and onnxruntime.
    from vision.classify import UnreadableVariant, check_readable
    from vision.overlay import overlay_png

    try:
        variant = chosen_variant(args)
        check_readable(variant)
    except (VariantError, UnreadableVariant) as exc:
        print(f"scorekeeper read: {exc}", file=sys.stderr)
        return 2
    overlays = overlay_paths(args.overlay, len(args.photos)) if args.overlay else []
    failed = 0
    for index, photo in enumerate(args.photos):
        try:
            reading = _read(photo, variant)
        except PhotoFailure as exc:
            failed += 1
            print(f"{photo}: {exc}", file=sys.stderr)
            if args.json:
                print(json.dumps({"photo": photo, "error": str(exc)}, ensure_ascii=False))
            continue
        if overlays:
            try:
                overlays[index].write_bytes(overlay_png(Path(photo).read_bytes(), reading))
            except OSError as exc:
                failed += 1
                print(f"{overlays[index]}: cannot write the overlay: {exc}", file=sys.stderr)
        if args.json:
            print(json.dumps(reading.to_json(photo), ensure_ascii=False))
        else:
            if index:
                print()  # boards of several photos are separated by an empty line
            print(reading.text)
        sys.stdout.flush()
    return 2 if failed else 0


class PhotoFailure(Exception):
    """One photo could not be read; the message is the one-line reason."""


def _read(photo: str, variant: Variant) -> BoardReading:
    """Read one photo file, turning every expected failure into a one-line `PhotoFailure`."""
    from vision.decode import PhotoError
    from vision.locate import BoardNotFound
    from vision.pipeline import read_board

    try:
        data = Path(photo).read_bytes()
    except OSError as exc:
        raise PhotoFailure(f"cannot read the file: {exc.strerror or exc}") from exc
    try:
        return read_board(data, variant, free_squares=True)
    except PhotoError as exc:
        raise PhotoFailure(exc.message) from exc
    except BoardNotFound as exc:
        raise PhotoFailure(f"no board found: {exc}") from exc
    except (OSError, RuntimeError) as exc:
        raise PhotoFailure(f"cannot load the cell model: {exc}") from exc
