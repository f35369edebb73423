"""The typefaces the renderer draws with: an explicit list of font files from named Debian packages.

The renderer never searches the machine for fonts: a glob over /usr/share/fonts made rendered
boards (and so the tests and the training data) depend on whatever fonts a machine happened to
have — fonts-liberation2 puts a second LiberationSans-Bold.ttf beside fonts-liberation's, and any
extra family changed which font a seed drew. Here every face is a full path with the package that
installs it (Debian bookworm); a missing file is an error naming its package, and fonts the list
does not name are never used. `.ci/run` and the training setup install `packages()`.

>>> all(face.path.startswith("/usr/share/fonts/") for face in FACES)
True
"""

from __future__ import annotations

import os
from dataclasses import dataclass
from typing import Literal

Split = Literal["train", "heldout"]

_ROOT = "/usr/share/fonts/truetype"


@dataclass(frozen=True)
class Face:
    """One font file: its family, path, the Debian package that installs it, and whether it is
    heavy (Эрудит tiles are printed in a heavy sans) and held out of training."""

    family: str
    path: str
    package: str
    bold: bool
    split: Split = "train"


def _faces(
    family: str,
    package: str,
    folder: str,
    files: tuple[tuple[str, bool], ...],
    split: Split = "train",
) -> list[Face]:
    return [Face(family, f"{_ROOT}/{folder}/{name}", package, bold, split) for name, bold in files]


# The order is part of the renderer's determinism: a seed picks a face by its index.
FACES: tuple[Face, ...] = (
    *_faces("DejaVu", "fonts-dejavu-core", "dejavu", (("DejaVuSans-Bold.ttf", True),)),
    *_faces("DejaVu", "fonts-dejavu-extra", "dejavu", (("DejaVuSansCondensed-Bold.ttf", True),)),
    *_faces("DejaVu", "fonts-dejavu-core", "dejavu", (("DejaVuSans.ttf", False),)),
    *_faces("DejaVuSerif", "fonts-dejavu-core", "dejavu", (("DejaVuSerif-Bold.ttf", True),)),
    *_faces(
        "Liberation",
        "fonts-liberation",
        "liberation",
        (
            ("LiberationSans-Bold.ttf", True),
            ("LiberationSansNarrow-Bold.ttf", True),
            ("LiberationSans-Regular.ttf", False),
        ),
    ),
    *_faces(
        "LiberationSerif", "fonts-liberation", "liberation", (("LiberationSerif-Bold.ttf", True),)
    ),
    *_faces(
        "FreeFont",
        "fonts-freefont-ttf",
        "freefont",
        (("FreeSansBold.ttf", True), ("FreeSerifBold.ttf", True), ("FreeSans.ttf", False)),
    ),
    *_faces(
        "OpenSans",
        "fonts-open-sans",
        "open-sans",
        (
            ("OpenSans-Bold.ttf", True),
            ("OpenSans-Semibold.ttf", False),
            ("OpenSans-Regular.ttf", False),
        ),
    ),
    *_faces(
        "Carlito",
        "fonts-crosextra-carlito",
        "crosextra",
        (("Carlito-Bold.ttf", True), ("Carlito-Regular.ttf", False)),
    ),
    *_faces(
        "Roboto",
        "fonts-roboto-unhinted",
        "roboto/unhinted",
        (
            ("RobotoTTF/Roboto-Bold.ttf", True),
            ("RobotoTTF/Roboto-Regular.ttf", False),
            ("RobotoCondensed-Bold.ttf", True),
        ),
    ),
    # PT Sans, Narrow and Serif Caption are kept out of training so a held-out measurement sees
    # a typeface the model never saw.
    *_faces(
        "PT",
        "fonts-paratype",
        "paratype",
        (("PTS75F.ttf", True), ("PTN77F.ttf", True), ("PTS55F.ttf", False), ("PTF75F.ttf", True)),
        split="heldout",
    ),
)

# The English tiles' regular-weight Helvetica-like letter.
REGULAR_SANS = f"{_ROOT}/liberation/LiberationSans-Regular.ttf"


class FontMissing(RuntimeError):
    """A font file the renderer draws with is not installed."""


def packages() -> list[str]:
    """The Debian packages that install every listed face, sorted."""
    return sorted({face.package for face in FACES})


def check_installed(faces: tuple[Face, ...] | list[Face] = FACES) -> None:
    """Raise FontMissing naming the packages of any listed face that is not installed."""
    missing = [face for face in faces if not os.path.isfile(face.path)]
    if missing:
        names = sorted({face.package for face in missing})
        raise FontMissing(
            f"{len(missing)} font file(s) the renderer needs are missing, first {missing[0].path}; "
            f"install them with: apt-get install {' '.join(names)}"
        )


def faces(split: Split, bold: bool | None = None) -> list[Face]:
    """The faces of a split in their fixed order, optionally only heavy (or only light) ones;
    raises FontMissing if any is not installed."""
    chosen = [f for f in FACES if f.split == split and (bold is None or f.bold == bold)]
    check_installed(chosen)
    return chosen


def font_paths(split: Split, bold: bool | None = None) -> list[str]:
    """Paths of `faces(split, bold)`."""
    return [face.path for face in faces(split, bold)]


def families(split: Split) -> list[str]:
    """The family names of a split, in order, each once."""
    return list(dict.fromkeys(face.family for face in FACES if face.split == split))


if __name__ == "__main__":
    # For install scripts: `apt-get install $(python -m training.fonts)`.
    print(" ".join(packages()))
