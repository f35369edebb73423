"""The renderer draws only with the font files training/fonts.py lists, whatever else is installed."""

from collections.abc import Iterator

import numpy as np
import pytest
from PIL import ImageFont

from scorer.variant import load_variant, variant_names
from training import fonts, render


@pytest.fixture
def opened_fonts(monkeypatch: pytest.MonkeyPatch) -> Iterator[list[str]]:
    """Every font path Pillow is asked to open while the test runs (the renderer's font caches
    are emptied first, so nothing opened earlier hides from the spy)."""
    opened: list[str] = []
    real = ImageFont.truetype

    def spy(font, *args, **kwargs):  # noqa: ANN001, ANN002, ANN003, ANN202
        opened.append(str(font))
        return real(font, *args, **kwargs)

    monkeypatch.setattr(ImageFont, "truetype", spy)
    render._font.cache_clear()
    render._cap_ratio.cache_clear()
    yield opened
    render._font.cache_clear()
    render._cap_ratio.cache_clear()


def test_rendered_boards_use_only_the_listed_fonts(opened_fonts: list[str]) -> None:
    listed = {face.path for face in fonts.FACES}
    rng = np.random.default_rng(3)
    rows = render.random_rows(rng, ("A", "B", "Ж", "Щ"), 0.3)
    for seed in range(12):
        split = "heldout" if seed % 3 == 0 else "train"
        style = render.random_style(np.random.default_rng(seed), split)
        render.render_board_photo(rows, "ru", style=style, seed=seed, size=(480, 360))
    for style in (render.erudit_style(), render.scrabble_style(), render.deluxe_style()):
        render.render_board_photo(rows, "ru", style=style, seed=1, size=(480, 360))
    assert opened_fonts, "the renderer drew no text"
    assert set(opened_fonts) <= listed, sorted(set(opened_fonts) - listed)


def test_held_out_faces_never_reach_training() -> None:
    heldout = set(fonts.font_paths("heldout"))
    assert heldout
    for seed in range(40):
        assert render.random_style(np.random.default_rng(seed), "train").font not in heldout


def test_a_missing_font_names_its_package(monkeypatch: pytest.MonkeyPatch) -> None:
    missing = fonts.Face(
        "Nowhere", "/usr/share/fonts/truetype/none/Nowhere.ttf", "fonts-none", True
    )
    monkeypatch.setattr(fonts, "FACES", (*fonts.FACES, missing))
    with pytest.raises(fonts.FontMissing, match="apt-get install fonts-none"):
        fonts.faces("train")


def test_ci_installs_every_font_package() -> None:
    # .ci/run asks training/fonts.py for the list rather than copying it.
    with open(".ci/run", encoding="utf-8") as script:
        assert "$(python3 -m training.fonts)" in script.read()
    assert "fonts-paratype" in fonts.packages()


def test_the_same_seed_draws_the_same_photo() -> None:
    rows = ["." * 15] * 7 + ["...КОТ........."] + ["." * 15] * 7
    first, corners_a, _ = render.render_board_photo(rows, "ru", seed=5, size=(480, 360))
    second, corners_b, _ = render.render_board_photo(rows, "ru", seed=5, size=(480, 360))
    assert np.array_equal(first, second)
    assert np.array_equal(corners_a, corners_b)


def test_every_face_draws_every_letter_of_every_variant() -> None:
    """Ä, Ñ, Ł, Ґ… are glyphs of each listed face, not its missing-glyph box (a [CH] tile is
    drawn as its two letters)."""
    letters = sorted(
        {ch for name in variant_names() for t in load_variant(name).alphabet for ch in t}
    )
    for face in fonts.FACES:
        font = ImageFont.truetype(face.path, 40)

        def drawn(ch: str, font: ImageFont.FreeTypeFont = font) -> tuple:
            mask = font.getmask(ch)
            return mask.size, bytes(mask)

        missing = {drawn("\ue123"), drawn("\u0378")}  # a private-use and an unassigned point
        assert [ch for ch in letters if drawn(ch) in missing] == [], face.path
