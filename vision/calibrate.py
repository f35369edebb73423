"""Tile or empty, decided against the board itself: a photo of a board is its own calibration.

A classifier trained on rendered editions judges each square alone, so on an edition it never
saw it may take every wood-print square, or every square of one premium colour, for a blank
tile. But the layout says which squares share a premium kind, and in one photo the empty squares
of a kind look alike; the lettered tiles read with confidence show what this edition's tiles look
like. So:

1. Each cell gets a look: the median colour (lightness and two opponent colours, divided by the
   lightness so a shadow, a glare or a dark band of grain moves the lightness only) of its middle
   and of its rim (the rim shows the grid lines on an empty square, the tile's edge and shadow on
   a tile), and the spread of lightness in its middle (a letter's ink, a label's print, grain),
   also divided by the lightness, since a shadow scales it too.
   Lightness is given a wider tolerance than hue, for the same reason.
2. Per premium kind, the squares the classifier is sure are empty give that kind's empty look,
   with its squares whose colours are plainly unlike the tiles' (step 3): the squares the
   classifier is sure of are the typical ones (the lit side of a wood print's grain), so alone
   they would make the look too narrow for the rest. Where it is sure of none, but reads more of
   one tile on squares of one kind, or of the whole board, than the whole set holds (eight blank
   tiles, or a printed "3" read as seven З), those look-alikes are that kind's empty look, with
   its squares plainly unlike the tiles (then only as doubts: no sure empty vouches for them).
   Where nothing vouches for any square of a kind of several, its majority look is its empty
   look, as doubts: most squares of any kind are empty in most photos.
3. The lettered tiles read with confidence, but for such look-alikes, give the tile look.
4. Each cell's odds of being empty are multiplied by how much better the empty look of its kind
   explains its colours than the tile look does (a ratio of two diagonal Gaussians), bounded
   both ways. Only a cell that lies among its empty siblings, its middle's spread included, is
   made likelier to be empty (one of its siblings' hue and ink and plainly no tile counts as
   among them whatever its light, a glare or a shadow, as a doubt), and only if it is no
   plausible tile: a broad spread of wood-print empties must not swallow a lettered tile whose
   light is a little off, nor a wooden blank on a square of nearly its colour; but for a
   look-alike (step 2) that its empty siblings explain better than the tiles do, by all its
   colours or by its hues alone (light varies across a board far more than hue: squares in a
   darker band of a cream wood print lie nearer grey-green tiles' light than their lit
   siblings'): most of those are empty, so it reads empty, as a doubt (`DOUBT`), since any one
   of them may be the tile. By hue too, on bench_editions' 400 held-out photos from seed
   7400000, wood prints' empty squares read as tiles went from 208 to 69 (the 60 read as
   blanks on one photo, 7400121, to none), no tile read as empty more.
   A square the classifier reads as a blank tile (a tile by its look alone: it has no letter)
   whose colours are plainly unlike the tiles' is an empty square in other light even where it
   is not among its siblings (light falling off towards the board's edge), as a doubt. A
   square of the tiles' colours, unlike its siblings in hue and ink as well as in light, is
   made likelier a tile by up to 10³× rather than 10×: no light makes an empty square so.
   A square with no empty sibling to compare with (the centre, a kind of its own) whose colours
   are plainly unlike the tiles', or that is no plausible tile and lies among another kind's
   sure empties, reads empty, as a doubt. With no tile look to compare (an empty board), a
   square like its empty siblings is only made likelier to be empty, never likelier to be a
   tile: a glare spot on an empty square must not become a tile.
5. A square read as a blank, of more than the set holds, that step 4 makes likelier to be empty
   starts from no surer a blank than the set allows: of m squares read as blanks where the set
   has n, at least m − n are no blank, and a square that looks like a tile with no letter and is
   no blank is an empty square; so its odds of being empty are first raised to (m − n) / n where
   the classifier gave less. The classifier, sure of each wood-print square alone (a blank at
   0.9999), cannot be sure of a hundred of them when the set has two; the look then decides as
   above. (Letters read more often than the set holds are more often a look-alike letter, Ć
   read as C, than an empty square: they get no such start.)

A doubt reads empty no surer than `DOUBT`, below what the tracker takes as read, so a true tile
among such squares is asked about, never dropped silently.
"""

from __future__ import annotations

from functools import cache

import cv2
import numpy as np

# Features: lightness and two opponent colours (red-green, yellow-blue, as at one lightness) of
# the middle, then of the rim, then the standard deviation of lightness in the middle. The
# colours are a fixed linear map of BGR on Lab's scale: OpenCV's Lab conversion cost 25 ms a
# board here, this a fraction of one. The tile look compares colours only (`COLOURS`): tiles
# read with confidence carry letters, blanks do not.
_MIDDLE = (0.25, 0.75)
# The middle's halves along one side (`cell_looks`), each reaching a little past the middle
# towards its side.
_HALVES = ((0.15, 0.5), (0.5, 0.85))
_RIM = 0.12
_COLOUR_FEATURES = 6
# The colour features of a look: the middle's and the rim's lightness and opponent colours.
COLOURS = slice(0, _COLOUR_FEATURES)
# The middle's lightness and two opponent colours.
_MIDDLE_COLOUR = slice(0, 3)
# All features but the lightness: the opponent colours of the middle and of the rim, the middle's
# spread (a letter's ink).
_BUT_LIGHT = [1, 2, 4, 5, 6]
# The opponent colours of the middle and of the rim: the hues.
_HUES = [1, 2, 4, 5]
# The middle's opponent colours and its spread: its hue and ink, whatever the light.
_MIDDLE_HUE_INK = [1, 2, 6]
# BGR -> (lightness, red-green, yellow-blue), each about 0-255 wide like OpenCV's 8-bit Lab.
OPPONENT = np.array([[0.114, 0.587, 0.299], [0.0, -0.5, 0.5], [-0.5, 0.25, 0.25]], dtype=np.float32)
# The opponent colours are given as at this lightness, and as at `DARKEST` for darker squares
# (whose hue is mostly noise).
LIGHT = 128.0
DARKEST = 32.0
# Smallest spread per feature: lighting across a board varies more than the siblings measured,
# and its lightness (shadows, glare, bands of grain) much more than its hue.
FLOOR = np.array([15.0, 5.0, 5.0, 15.0, 5.0, 5.0, 3.0])
# How far the photo may move a cell's odds: up to 10⁶× towards empty (a square plainly like its
# empty siblings and unlike the tiles, however sure the classifier), 10× towards a tile.
MAX_TOWARDS_EMPTY = np.log(1e6)
MAX_TOWARDS_TILE = np.log(10.0)
# 10³× towards a tile for a square of the tiles' colours that no light explains as its empty
# siblings: unlike them in hue and ink as well as in lightness.
MAX_TOWARDS_PLAIN_TILE = np.log(1e3)
# How near (in cells) a reference square must be to weigh in a square's expected look.
_NEAR = 3.0
# Passes of `relative_to_board`, each taking its references from the last one's verdicts.
PASSES = 3
# A square whose colours lie this many times the features farther from the tile look than a typical
# tile is plainly no tile, and lends its look to its kind's empty reference.
UNLIKE_TILES = 4.0
# How likely to be empty the photo may make a square that is as plausibly a tile as an empty one,
# but one of more look-alikes than the set holds: below `SURE`, so it stays a doubt.
DOUBT = 0.8
# A kind of at least this many squares, none of them vouched for, takes its majority look for
# its empty look (see `_log_ratios`).
MAJORITY = 4
# A cell the classifier is this sure of lends its look to its kind's (or the tiles') reference.
SURE = 0.9


def cell_looks(grid_image: np.ndarray, rows: int, cols: int) -> tuple[np.ndarray, np.ndarray]:
    """The looks of the cells of a rectified BGR grid image, in row-major order: [rows·cols, 7]
    (module docstring, step 1), and [rows·cols, 4, 3] the colours (lightness and two opponent
    colours, as in the looks) of each middle's four halves (top, bottom, left, right, each
    reaching a little past the middle towards its side): the far side of a square that a
    neighbouring tile's overhang covers (`like_vacant_halves` takes them as a set, so the
    board's rotation does not move them)."""
    height, width = grid_image.shape[:2]
    # Half the classifier's cell size is plenty for colours, at a quarter of the cost.
    cy, cx = max(8, height // rows // 2), max(8, width // cols // 2)
    small = cv2.resize(grid_image, (cols * cx, rows * cy), interpolation=cv2.INTER_AREA)
    colours = small.astype(np.float32) @ OPPONENT.T
    blocks = colours[: rows * cy, : cols * cx].reshape(rows, cy, cols, cx, 3)
    blocks = blocks.transpose(0, 2, 1, 3, 4).reshape(rows * cols, cy, cx, 3)
    ys, xs = np.mgrid[0:cy, 0:cx]
    fy, fx = (ys + 0.5) / cy, (xs + 0.5) / cx
    lo, hi = _MIDDLE
    across, down = (fx >= lo) & (fx < hi), (fy >= lo) & (fy < hi)
    middle = across & down
    rim = (np.minimum(fy, 1 - fy) < _RIM) | (np.minimum(fx, 1 - fx) < _RIM)
    centre = blocks[:, middle]
    middle_colour = _median(centre)
    # The ink's spread scales with the light as the colours do: a printed label in a shadow
    # that halves its square's lightness shows half the spread (measured: 0.63-0.64 of its
    # lit siblings' at 0.64 of their lightness), so it is given as at one lightness too.
    ink = centre[..., 0].std(axis=1, keepdims=True) * _light_scale(middle_colour)
    looks = np.concatenate(
        [_chromaticity(middle_colour), _chromaticity(_median(blocks[:, rim])), ink], axis=1
    )
    halves = [(fy >= a) & (fy < b) & across for a, b in _HALVES]
    halves += [(fx >= a) & (fx < b) & down for a, b in _HALVES]
    return looks, np.stack([_chromaticity(_median(blocks[:, half])) for half in halves], axis=1)


def _chromaticity(colours: np.ndarray) -> np.ndarray:
    """[N, 3] (lightness, red-green, yellow-blue) with the two opponent colours divided by the
    lightness (on `LIGHT`'s scale): a shadow, a glare or a dark band of grain scales a square's
    colours, so it moves only the lightness and not its hue, which is what tells a tile."""
    return np.concatenate([colours[:, :1], colours[:, 1:] * _light_scale(colours)], axis=1)


def _light_scale(colours: np.ndarray) -> np.ndarray:
    """[N, 1] the factor that gives a measure of light of `colours` ([N, 3]) as at `LIGHT`."""
    return LIGHT / np.maximum(colours[:, :1], DARKEST)


def _median(pixels: np.ndarray) -> np.ndarray:
    """Per-cell median of [N, P, 3] pixels (sorting is many times faster than np.median here)."""
    return np.sort(pixels, axis=1)[:, pixels.shape[1] // 2]


def rotate_looks(looks: np.ndarray, rows: int, cols: int, k: int) -> np.ndarray:
    """Looks moved as `vision.orient.rotate_predictions` moves cells for rotation k."""
    grid = np.rot90(looks.reshape(rows, cols, -1), -(k % 4), axes=(0, 1))
    return np.ascontiguousarray(grid.reshape(rows * cols, -1))


@cache
def _nearness(cells: int, cols: int) -> np.ndarray:
    """[cells, cells] weight of each square (columns) in the look expected at each square (rows)
    of a board `cols` wide: falling off with distance over `_NEAR` cells, and none for the square
    itself, whose own look must not vouch for it. Read-only: it is shared by every photo."""
    squares = np.stack(np.divmod(np.arange(cells), cols), axis=1).astype(float)
    gap = ((squares[:, None, :] - squares[None, :, :]) ** 2).sum(axis=2)
    weight = np.where(gap == 0, 0.0, np.exp(-gap / (2 * _NEAR**2)) + 1e-6)
    weight.setflags(write=False)
    return weight


def _medians(values: np.ndarray, groups: np.ndarray) -> np.ndarray:
    """[G, F] median per feature of the rows of `values` ([N, F]) in each mask of `groups`
    ([G, N]), as `np.median` gives it (the mean of the middle two of an even count), all groups
    in one sort; a group with no rows gets zeros."""
    counts = groups.sum(axis=1)
    ordered = np.sort(np.where(groups[:, :, None], values[None], np.inf), axis=1)
    index = np.arange(len(groups))
    low, high = np.maximum(counts - 1, 0) // 2, counts // 2
    middle = (ordered[index, low] + ordered[index, high]) / 2
    return np.where(counts[:, None] > 0, middle, 0.0)


def _expected(
    looks: np.ndarray, nearness: np.ndarray, groups: np.ndarray, references: np.ndarray
) -> tuple[np.ndarray, np.ndarray]:
    """The look expected at each square from the reference squares of its group, and each group's
    spread, for all groups at once.

    `groups` ([N] ints) is each square's group, `references` ([G, N] masks) each group's reference
    squares, which lie in the group. The expected look ([N, F]) is a mean weighted by nearness,
    so light falling off across the board or a glare does not pass for another look (zeros for a
    square whose group has no reference); the spread ([G, F]) is one robust spread per feature,
    of the references about their own expected looks, at least `FLOOR`."""
    weight = np.where(references[groups], nearness, 0.0)
    total = weight.sum(axis=1, keepdims=True)
    means = np.divide(weight @ looks, total, out=np.zeros(looks.shape), where=total > 0)
    residual = looks - means
    deviation = np.abs(residual - _medians(residual, references)[groups])
    spread = 1.4826 * _medians(deviation, references)
    return means, np.maximum(spread, FLOOR[: looks.shape[1]])


class BoardLooks:
    """One photo's cell looks (`cell_looks`, upright like the reading, row-major) on a board of
    premium `kinds` (the layout's codes, row-major) `cols` wide: what `relative_to_board` weighs
    a reading against.

    It keeps the expected looks asked of it: the passes of one weighing ask again for the same
    references once their verdicts settle, and so does the weighing of the final reading after
    the first model's (`vision.pipeline`), so each is computed once per photo."""

    def __init__(self, looks: np.ndarray, kinds: list[str], cols: int) -> None:
        if len(kinds) != len(looks):
            raise ValueError(f"{len(looks)} looks for a board of {len(kinds)} squares")
        # Float64 once, as every sum over the looks would make it anyway.
        self.looks = np.asarray(looks, dtype=np.float64)
        self.colours = np.ascontiguousarray(self.looks[:, COLOURS])
        self.cols = cols
        # The premium kinds numbered from 0, and as masks over the squares, one per kind.
        _, self.kinds = np.unique(np.array(kinds), return_inverse=True)
        self.members = np.arange(self.kinds.max() + 1)[:, None] == self.kinds[None, :]
        self.nearness = _nearness(len(self.looks), cols)
        self._asked: dict[tuple[str, bytes], tuple[np.ndarray, np.ndarray]] = {}

    def kind_looks(self, references: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
        """The look ([N, F]) expected at each square from its kind's `references` ([K, N] masks),
        and each kind's spread ([K, F]); see `_expected`."""
        key = ("kinds", references.tobytes())
        if key not in self._asked:
            self._asked[key] = _expected(self.looks, self.nearness, self.kinds, references)
        return self._asked[key]

    def tile_looks(self, tiles: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
        """The colours ([N, 6]) expected at each square from the `tiles` (a mask), and their
        spread ([6])."""
        key = ("tiles", tiles.tobytes())
        if key not in self._asked:
            means, spread = _expected(
                self.colours, self.nearness, np.zeros(len(tiles), int), tiles[None]
            )
            self._asked[key] = means, spread[0]
        return self._asked[key]


def _distance(looks: np.ndarray, means: np.ndarray, spread: np.ndarray) -> np.ndarray:
    """Squared standardised distance of each look from its expected look and spread."""
    return (((looks - means) / spread) ** 2).sum(axis=-1)


def _log_density(looks: np.ndarray, means: np.ndarray, spread: np.ndarray) -> np.ndarray:
    return -0.5 * _distance(looks, means, spread) - np.log(spread).sum(axis=-1)


def _too_many(scores: np.ndarray, kinds: np.ndarray, empty: int, counts: np.ndarray) -> np.ndarray:
    """The cells of one kind, or of the whole board, read as one tile more often than the set
    holds it (look-alikes: a kind's empty squares taken for one tile)."""
    top = scores.argmax(axis=1)
    labels = scores.shape[1]
    per_kind = np.bincount(kinds * labels + top, minlength=(kinds.max() + 1) * labels)
    limit = np.maximum(counts.astype(int), 1)
    over = per_kind.reshape(-1, labels) > limit
    over_board = np.bincount(top, minlength=labels) > limit
    over[:, empty] = over_board[empty] = False
    return over[kinds, top] | over_board[top]


def _like_other_kinds(board: BoardLooks, targets: np.ndarray, sure_empty: np.ndarray) -> np.ndarray:
    """Which `targets` (a mask over the squares) lie among the sure empty squares of some other
    kind than their own, of a kind with at least two (`sure_empty`: [K, N] masks per kind)."""
    alike = np.zeros(len(targets), bool)
    vouched = np.flatnonzero(sure_empty.sum(axis=1) >= 2)
    if not len(vouched):
        return alike
    _, spread = board.kind_looks(sure_empty)
    at = np.flatnonzero(targets)
    # [targets, vouched kinds, squares]: each target's weights over each kind's sure empties.
    weight = np.where(sure_empty[vouched][None], board.nearness[at][:, None, :], 0.0)
    means = (weight @ board.looks) / weight.sum(axis=2, keepdims=True)
    distance = _distance(board.looks[at][:, None, :], means, spread[vouched][None])
    # The targets' own kinds have fewer than two sure empties, so every vouched kind is another.
    alike[at] = (distance <= 2 * board.looks.shape[1]).any(axis=1)
    return alike


def _log_ratios(
    scores: np.ndarray,
    board: BoardLooks,
    empty: int,
    blank: int,
    too_many: np.ndarray,
    read_blank: np.ndarray,
) -> tuple[np.ndarray, np.ndarray]:
    """Per cell, the log factor by which the photo's own looks move its odds of being empty, and
    which cells it may make no likelier to be empty than `DOUBT`; `too_many` marks the
    classifier's look-alikes (`_too_many`), `read_blank` the cells it reads as blank tiles. All
    kinds are weighed at once: each cell against the references its kind takes (module
    docstring)."""
    top = scores.argmax(axis=1)
    confidence = scores.max(axis=1)
    looks, colours, kinds, members = board.looks, board.colours, board.kinds, board.members
    features = looks.shape[1]
    lettered = (top != empty) & (top != blank) & (confidence >= SURE) & ~too_many
    has_tiles = lettered.sum() >= 3
    unlike_tiles = np.zeros(len(scores), bool)
    plain_tile = np.zeros(len(scores), bool)
    if has_tiles:
        tile_means, tile_spread = board.tile_looks(lettered)
        tile_distance = _distance(colours, tile_means, tile_spread)
        unlike_tiles = (tile_distance > UNLIKE_TILES * _COLOUR_FEATURES) & ~lettered
    sure_empty = members & ((top == empty) & (confidence >= SURE))
    look_alikes = members & (too_many | unlike_tiles)
    # Which references each kind takes (see the module docstring, step 2): the squares the
    # classifier is sure of are the typical ones (the lit side of a wood print's grain), so its
    # siblings that are plainly no tile show the rest; with no sure empty of the kind, its
    # look-alikes and its squares plainly no tile are its empty look, the latter only as a doubt
    # with no sure empty to vouch for them; with nothing to vouch for any square of the kind,
    # most squares of a kind are empty in most photos, so its squares that look like most of the
    # others read empty, as doubts.
    by_sure = sure_empty.sum(axis=1) >= 2
    by_look_alikes = ~by_sure & (look_alikes.sum(axis=1) >= 2)
    by_majority = ~by_sure & ~by_look_alikes & (members.sum(axis=1) >= MAJORITY)
    siblings = np.where(
        by_sure[:, None],
        sure_empty | (members & unlike_tiles),
        np.where(by_look_alikes[:, None], look_alikes, members & by_majority[:, None]),
    )
    doubtful_kind = by_majority | (
        by_look_alikes & (siblings & unlike_tiles & ~too_many).any(axis=1)
    )
    compared = (by_sure | by_look_alikes | by_majority)[kinds]
    doubt = doubtful_kind[kinds]
    means, spread = board.kind_looks(siblings)
    spread = spread[kinds]
    # A typical sibling lies at a squared distance of about the number of features.
    distance = _distance(looks, means, spread)
    among = distance <= 2 * features
    # A square of its siblings' hue and ink and plainly no tile is among them whatever its
    # light (a glare spot or a shadow moves the lightness far more than `FLOOR` allows), as
    # a doubt: a glare may wash out a blank tile's colour too.
    unlit_distance = _distance(looks[:, _BUT_LIGHT], means[:, _BUT_LIGHT], spread[:, _BUT_LIGHT])
    unlit_only = ~among & (unlike_tiles | too_many) & (unlit_distance <= 2 * len(_BUT_LIGHT))
    among |= unlit_only
    doubt |= compared & unlit_only
    # A cell among its empty siblings is made likelier to be empty by as much as it is close.
    closeness = np.maximum(0.0, 0.5 * (2 * features - distance))
    closeness[unlit_only] = MAX_TOWARDS_EMPTY
    if not has_tiles:
        # Only the empty siblings to compare with: nothing is made likelier a tile.
        ratio = closeness
    else:

        def explained(features: list[int] | slice) -> np.ndarray:
            """How much better, in log density, the empty look of each cell's kind explains
            these colour `features` of it than the tile look does."""
            return _log_density(
                colours[:, features], means[:, features], spread[:, features]
            ) - _log_density(colours[:, features], tile_means[:, features], tile_spread[features])

        ratio = explained(COLOURS)
        # A square as plausible a tile as an empty one (wooden blanks on beige squares) is the
        # classifier's to judge, but for one of more look-alikes than the set has tiles (pale
        # premium squares read as blanks): most of those are empty, so one among its empty
        # siblings reads empty, as a doubt, since any may be the tile.
        plausible = tile_distance <= 2 * _COLOUR_FEATURES
        # A look-alike is also weighed by its hues alone: light varies across a board (bands
        # of grain, light falling off) far more than hue does.
        alike = among & plausible & too_many & ((ratio > 0) | (explained(_HUES) > 0))
        ratio = np.where(alike, np.maximum(ratio, closeness), ratio)
        doubt |= compared & alike
        among &= ~plausible | alike
        # Read as a blank tile (a tile by its look alone, having no letter) but plainly unlike
        # this board's tiles: an empty square in other light, however unlike its siblings (light
        # falling off towards the board's edge), as a doubt.
        other_light = ~among & unlike_tiles & read_blank & (ratio > 0)
        among |= other_light
        doubt |= compared & other_light
        # Of the tiles' colours and unlike its siblings in hue and ink too, which no glare or
        # shadow makes an empty square (a white blank on a green board, read empty at 0.98):
        # the look may outweigh the classifier further towards a tile.
        plain_tile = (
            compared & plausible & ~among & (unlit_distance > UNLIKE_TILES * len(_BUT_LIGHT))
        )
    log_ratio = np.where(
        compared, np.where(among, np.maximum(ratio, 0.0), np.minimum(ratio, 0.0)), 0.0
    )
    # No empty sibling to compare with (the centre square, a kind of its own): a square plainly
    # unlike the tiles, or no plausible tile and like the sure empty squares of another kind (a
    # centre printed as plain squares), reads empty, as a doubt.
    if not compared.all():
        alone = ~compared & (unlike_tiles | _like_other_kinds(board, ~compared, sure_empty))
        if has_tiles:
            alone &= unlike_tiles | (tile_distance > 2 * _COLOUR_FEATURES)
        log_ratio[alone] = MAX_TOWARDS_EMPTY
        doubt |= alone
    towards_tile = np.where(plain_tile, MAX_TOWARDS_PLAIN_TILE, MAX_TOWARDS_TILE)
    return np.clip(log_ratio, -towards_tile, MAX_TOWARDS_EMPTY), doubt


def _share_odds(
    scores: np.ndarray, empty: int, blank: int, counts: np.ndarray, too_many: np.ndarray
) -> np.ndarray:
    """Per cell, the odds of being empty that the set's count of blanks leaves a cell read as one
    of more blanks than it holds (`too_many`): of m such cells where the set has n, at least
    m − n are empty, so one is empty at odds of (m − n) / n at least (module docstring, step 5);
    0 for the others."""
    top = scores.argmax(axis=1)
    held = max(int(counts[blank]), 1)
    surplus = max(int((top == blank).sum()) - held, 0) / held
    return np.where(too_many & (top == blank) & (blank != empty), surplus, 0.0)


def _weighed(
    scores: np.ndarray,
    log_ratio: np.ndarray,
    empty: int,
    doubt: np.ndarray,
    share: np.ndarray | None = None,
) -> np.ndarray:
    """Scores with each cell's odds of being empty multiplied by exp(log_ratio), those of the
    `doubt` cells to no more than `DOUBT` (or as they were). Where the look makes a cell likelier
    to be empty, its odds are first raised to its `share` (`_share_odds`) where lower."""
    p_empty = scores[:, empty]
    odds = p_empty / np.maximum(1 - p_empty, 1e-12)
    if share is not None:
        odds = np.where(log_ratio > 0, np.maximum(odds, share), odds)
    odds = odds * np.exp(log_ratio)
    new_empty = odds / (1 + odds)
    new_empty = np.where(doubt, np.minimum(new_empty, np.maximum(p_empty, DOUBT)), new_empty)
    out = scores * ((1 - new_empty) / np.maximum(1 - p_empty, 1e-12))[:, None]
    out[:, empty] = new_empty
    return out


def relative_to_board(
    scores: np.ndarray,
    looks: BoardLooks,
    empty: int,
    blank: int,
    counts: np.ndarray,
    passes: int = PASSES,
) -> np.ndarray:
    """Cell scores ([N, labels], rows summing to 1, row-major) with each cell's odds of being
    empty weighed by the photo's own empty squares of its kind and its own tiles, seen in
    `looks` (see the module docstring).

    `empty` and `blank` are the columns of the empty square and of the variant's blank tile,
    `counts` per label column how many tiles of it the set holds. Each pass takes
    its references from the previous pass's verdicts, always weighing the classifier's own
    scores: a few sure empties of an unseen edition make a rough empty look, the squares it wins
    over a truer one.
    """
    if len(scores) != len(looks.looks):
        raise ValueError(f"{len(scores)} cells weighed against {len(looks.looks)} looks")
    weighed = scores
    # Look-alikes are the classifier's own reads: a pass that settles some must not make the
    # rest fall under the set's count.
    too_many = _too_many(scores, looks.kinds, empty, counts)
    share = _share_odds(scores, empty, blank, counts, too_many)
    read_blank = scores.argmax(axis=1) == blank
    for _ in range(passes):
        ratios, doubt = _log_ratios(weighed, looks, empty, blank, too_many, read_blank)
        weighed = _weighed(scores, ratios, empty, doubt, share)
    return weighed


def like_answered(
    looks: np.ndarray,
    kinds: list[str],
    cols: int,
    answered: np.ndarray,
    sure_empty: np.ndarray,
    doubtful: np.ndarray,
    tiles: np.ndarray,
    unlike_tiles: bool = True,
) -> np.ndarray:
    """Which `answered` or `doubtful` cells (masks over the cells, row-major) look like the
    empty squares of their premium kind in this photo, for the kinds with a square answered:
    the squares a player said were empty (`answered`, but for those now read as letters with
    confidence, `tiles`) and those read surely empty (`sure_empty`). Like step 4 above, a cell
    must lie among them and, with `unlike_tiles`, be no plausible tile, so a tile laid on an
    answered square since is left as read."""
    board = BoardLooks(looks, kinds, cols)
    references = board.members & ((answered & ~tiles) | sure_empty)
    weighed = (board.members & answered).any(axis=1) & (references.sum(axis=1) >= 2)
    targets = weighed[board.kinds] & (answered | doubtful)
    if not targets.any():
        return targets
    means, spread = board.kind_looks(references)
    distance = _distance(board.looks, means, spread[board.kinds])
    alike = targets & (distance <= 2 * looks.shape[1])
    if unlike_tiles and tiles.sum() >= 3:
        tile_means, tile_spread = board.tile_looks(tiles)
        alike &= _distance(board.colours, tile_means, tile_spread) > 2 * _COLOUR_FEATURES
    return alike


def plainly_no_tile(looks: np.ndarray, cols: int, tiles: np.ndarray) -> np.ndarray:
    """Which cells (looks row-major, `cols` wide) are plainly no tile in this photo: their colours
    lie `UNLIKE_TILES` times farther from the look of the photo's `tiles` (a mask of the lettered
    tiles read with confidence, at least 3) than a typical tile's; none without such tiles."""
    if tiles.sum() < 3:
        return np.zeros(len(tiles), bool)
    board = BoardLooks(looks, ["."] * len(looks), cols)
    means, spread = board.tile_looks(tiles)
    return _distance(board.colours, means, spread) > UNLIKE_TILES * _COLOUR_FEATURES


class _VacantKinds:
    """The `vacant` squares of each premium kind with `MAJORITY` or more of them, as the checks
    against a game's vacant squares weigh a cell: their expected look at each cell and its
    kind's spread, beside the photo's confident `tiles`."""

    def __init__(self, board: BoardLooks, references: np.ndarray) -> None:
        """`references`: each kind's vacant squares ([K, N] masks)."""
        self.board = board
        self.means, spread = board.kind_looks(references)
        self.spread = spread[board.kinds]

    @classmethod
    def of(
        cls,
        looks: np.ndarray,
        kinds: list[str],
        cols: int,
        vacant: np.ndarray,
        targets: np.ndarray,
        tiles: np.ndarray,
    ) -> tuple[_VacantKinds, np.ndarray] | None:
        """The kinds and the `targets` of kinds with enough vacant squares; None where none is
        left, or where fewer than three `tiles` tell what a tile looks like."""
        if tiles.sum() < 3:
            return None
        board = BoardLooks(looks, kinds, cols)
        references = board.members & vacant
        enough = (references.sum(axis=1) >= MAJORITY)[board.kinds]
        if not (enough & targets).any():
            return None
        return cls(board, references), enough & targets

    def among(self, features: list[int] | slice) -> np.ndarray:
        """Which cells lie among their kind's vacant squares by these `features`."""
        chosen = self.board.looks[:, features]
        limit = 2 * chosen.shape[1]
        return _distance(chosen, self.means[:, features], self.spread[:, features]) <= limit


def like_vacant(
    looks: np.ndarray,
    kinds: list[str],
    cols: int,
    vacant: np.ndarray,
    doubtful: np.ndarray,
    tiles: np.ndarray,
    letters: np.ndarray,
) -> tuple[np.ndarray, np.ndarray]:
    """Which `doubtful` cells look like the `vacant` squares of their premium kind in this photo
    (masks over the cells, row-major): squares the game knows hold no tile that the photo reads
    empty, at least as doubts, `MAJORITY` or more of a kind, so that the few a play covers do
    not make its look. A cell must lie among them (as in step 4 above) or, its middle's colours
    among theirs, be plainly no tile (`UNLIKE_TILES`): a square's rim takes in the edge or the
    shadow of a tile beside it, and the spread of its middle the print of its label, which one
    kind's labels vary in (a "2" and a "3"). Either way a cell must be no plausible tile of the
    photo's `tiles` (the lettered tiles read with confidence, at least three: with fewer,
    nothing tells a tile, and no cell is taken).

    Returns (alike, as_doubts): the cells so alike, and those of `letters` (the cells read as
    letters, which the caller reads empty only as a doubt) alike in a looser sense, their
    middle among theirs whatever their colours' distance from the tiles, or its hue and ink
    alone, whatever its light (a corner in a lamp's light); `as_doubts` holds `alike`'s letters."""
    none = np.zeros(len(looks), bool)
    found = _VacantKinds.of(looks, kinds, cols, vacant, doubtful, tiles)
    if found is None:
        return none, none
    vacant_kinds, targets = found
    board, among = vacant_kinds.board, vacant_kinds.among
    middle = among(_MIDDLE_COLOUR)
    tile_means, tile_spread = board.tile_looks(tiles)
    tile_distance = _distance(board.colours, tile_means, tile_spread)
    plausible = targets & (tile_distance > 2 * _COLOUR_FEATURES)
    whole = among(slice(None))
    alike = plausible & (whole | (middle & (tile_distance > UNLIKE_TILES * _COLOUR_FEATURES)))
    # A doubt's middle may be lit unlike its siblings' (a corner in a lamp's light, the siblings
    # it is weighed against across the board in shade): its hue and ink suffice.
    as_doubts = plausible & letters & (whole | middle | among(_MIDDLE_HUE_INK))
    return alike, as_doubts


def tile_coloured(
    looks: np.ndarray,
    kinds: list[str],
    cols: int,
    vacant: np.ndarray,
    targets: np.ndarray,
    tiles: np.ndarray,
) -> np.ndarray:
    """Which `targets` cells (a mask over the cells, row-major) show a tile's colours, not their
    premium square's: their middle lies among the middles of the photo's `tiles` (the lettered
    tiles read with confidence, at least three) and, by its colours and by its hue and ink
    whatever its light, not among the middles of the `vacant` squares of its premium kind
    (`MAJORITY` or more, as in `like_vacant`). A printed label is its vacant siblings' colour,
    so such a cell read as a letter is a tile, not a label taken for one; none where nothing
    tells the two apart."""
    found = _VacantKinds.of(looks, kinds, cols, vacant, targets, tiles)
    if found is None:
        return np.zeros(len(looks), bool)
    vacant_kinds, targets = found
    board, among = vacant_kinds.board, vacant_kinds.among
    tile_means, tile_spread = board.tile_looks(tiles)
    middles = board.looks[:, _MIDDLE_COLOUR]
    like_tiles = (
        _distance(middles, tile_means[:, _MIDDLE_COLOUR], tile_spread[_MIDDLE_COLOUR])
        <= 2 * middles.shape[1]
    )
    return targets & like_tiles & ~among(_MIDDLE_COLOUR) & ~among(_MIDDLE_HUE_INK)


def like_vacant_halves(
    looks: np.ndarray,
    halves: np.ndarray,
    kinds: list[str],
    cols: int,
    vacant: np.ndarray,
    targets: np.ndarray,
    tiles: np.ndarray,
) -> np.ndarray:
    """Which `targets` cells (a mask over the cells, row-major) have a half of their middle
    (`halves`, from `cell_looks`) whose colours lie among the middles of the `vacant` squares of
    their premium kind (`MAJORITY` or more, as in `like_vacant`) and are plainly unlike the
    middles of the photo's `tiles` (`UNLIKE_TILES`; at least three tiles, or no cell is taken).
    A thick tile seen at a slant overhangs the square beside it: in a German self-played game an
    S covered the top 0.4 of the empty "2" square below it, whose middle was then neither its
    siblings' colour nor a tile's, while its bottom half was its siblings' colour. A tile shows
    its own colours in every half."""
    found = _VacantKinds.of(looks, kinds, cols, vacant, targets, tiles)
    if found is None:
        return np.zeros(len(looks), bool)
    vacant_kinds, targets = found
    board = vacant_kinds.board
    kind_spread = vacant_kinds.spread[:, None, _MIDDLE_COLOUR]
    features = halves.shape[-1]
    among = (
        _distance(halves, vacant_kinds.means[:, None, _MIDDLE_COLOUR], kind_spread) <= 2 * features
    )
    tile_means, tile_spread = board.tile_looks(tiles)
    unlike = (
        _distance(halves, tile_means[:, None, _MIDDLE_COLOUR], tile_spread[_MIDDLE_COLOUR])
        > UNLIKE_TILES * features
    )
    return targets & (among & unlike).any(axis=1)
