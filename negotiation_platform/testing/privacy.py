"""Whether a game shows one seat's secrets to another seat, or to spectators.

Views are compared leaf by leaf (a leaf is a number or a text at a path such as
`your_values.coins`; booleans, nulls, player ids and role names are never treated as secrets).

A leaf of seat B's own view is B's **secret** at a moment when (1) it comes from the match's
random draws, not from the moves: the same moves made in a match on another seed give B's view
another value there; (2) seat A's view does not hold the same value at the same path (list
positions aside: two seats' lists of what they see may order it differently), so it is not common
knowledge; and (3) A could not have read the value in the events it was shown or in the public view.
A's view **leaks** it when one path of A's view holds B's secret at every moment it was a secret,
across every seed and move played, while the secret took at least three different values.

A spectator's **public view** leaks B's leaf when it comes from the draws (1), is known to no
other seat (not in their views, nor in their events) and is not in the public events, yet one
path of the public view holds it at every such moment, again over at least three different values.

A seat's BATNA (`player_batnas()`) is private by declaration: while the match runs, when it comes
from the draws and differs from seat A's own, no path of A's view nor of the public view may hold
it at every moment, over at least three different values; no exemption for what the views share.
(The value-flow rules above cannot see a secret that every view shows alike; a BATNA can.)

Requiring the copy at *every* moment, over changing values, is what keeps coincidences (a
secret 3 that happens to equal a round number once) from counting as leaks; requiring (1) keeps
what the moves made known (my last offer, as the other seat restates it) from counting as a secret.
"""

from __future__ import annotations

import math
from collections.abc import Iterator, Sequence
from dataclasses import dataclass, field

from negotiation_platform.testing.playthrough import Playthrough, Seen

Path = tuple[str, ...]
Key = tuple[str, float | str]
SPECTATOR = "\0spectator"
BATNA: Path = ("player_batnas()",)
"""Where a seat's BATNA is filed among its leaves: declared private, whatever the views show."""
DIFFERENT_VALUES = 3
"""A copy counts as a leak once the secret took this many different values (fewer can be chance)."""
MOMENTS_PER_PLAY = 40
"""Moments of one match compared (evenly spread): views of big games have thousands of leaves."""


@dataclass
class _Trail:
    """Where one seat's secret at one path has been copied so far, as seen by one observer."""

    mirrors: set[Path] | None = None
    values: set[Key] = field(default_factory=set)

    def follow(self, key: Key, copies: set[Path]) -> None:
        self.mirrors = set(copies) if self.mirrors is None else self.mirrors & copies
        self.values.add(key)


def find_leak(plays: Sequence[Playthrough], elsewhere: Sequence[list[Seen]], public_names: set[str]) -> str | None:
    """A sentence naming the first leak found in `plays` (same game, same seats), or None.

    `elsewhere[i]` holds the seats' views and BATNAs when the moves of `plays[i]` are made on
    another seed (`seen_on_seed`), as far as they stayed legal there; later moments hold no secrets.
    """
    never_secret: set[Key] = {("text", name) for name in public_names}
    trails: dict[tuple[str, str, Path], _Trail] = {}
    for play, other in zip(plays, elsewhere, strict=True):
        _follow_play(play, other, never_secret, trails)
    for (owner, observer, path), trail in sorted(trails.items(), key=lambda item: item[0][1] != SPECTATOR):
        if trail.mirrors and len(trail.values) >= DIFFERENT_VALUES:
            where = "the public view" if observer == SPECTATOR else f"{observer}'s view"
            copy = _dotted(min(trail.mirrors))
            return (
                f"{owner}'s private `{_dotted(path)}` ({len(trail.values)} different values) is always "
                f"copied in {where} at `{copy}`"
            )
    return None


def _follow_play(
    play: Playthrough, elsewhere: list[Seen], never_secret: set[Key], trails: dict[tuple[str, str, Path], _Trail]
) -> None:
    players = play.match.players
    known: dict[str, set[Key]] = {seat: set() for seat in players}
    public_known: set[Key] = set()
    seen = 0
    moments = min(len(play.snapshots), len(elsewhere))
    for moment in range(0, moments, max(1, math.ceil(moments / MOMENTS_PER_PLAY))):
        shot = play.snapshots[moment]
        for event in play.match.events[seen : shot.event_count]:
            keys = {key for _, key in leaves(event.data)}
            for seat in players if event.visible_to is None else event.visible_to:
                known[seat] |= keys
            if event.visible_to is None:
                public_known |= keys
        seen = shot.event_count
        if shot.finished:
            break  # the result makes BATNAs and deals public
        drawn = {seat: dict(leaves(elsewhere[moment].views[seat])) for seat in players}
        own = {seat: dict(leaves(shot.views[seat])) for seat in players}
        shapes = {seat: {(_shape(path), key) for path, key in own[seat].items()} for seat in players}
        where = {seat: _index(own[seat]) for seat in players}
        public = _index(dict(leaves(shot.public)))
        for owner in players:
            others = [seat for seat in players if seat != owner]
            batna = dict(leaves(shot.batnas.get(owner), BATNA)).get(BATNA)
            if batna is not None and dict(leaves(elsewhere[moment].batnas.get(owner), BATNA)).get(BATNA) != batna:
                for observer in others:
                    if dict(leaves(shot.batnas.get(observer), BATNA)).get(BATNA) != batna:
                        trails.setdefault((owner, observer, BATNA), _Trail()).follow(
                            batna, where[observer].get(batna, set())
                        )
                trails.setdefault((owner, SPECTATOR, BATNA), _Trail()).follow(batna, public.get(batna, set()))
            for path, key in own[owner].items():
                if key in never_secret or drawn[owner].get(path) == key:
                    continue
                for observer in others:
                    if (_shape(path), key) not in shapes[observer] and key not in known[observer] and key not in public:
                        trails.setdefault((owner, observer, path), _Trail()).follow(
                            key, where[observer].get(key, set())
                        )
                if key not in public_known and not any(key in known[o] or key in where[o] for o in others):
                    trails.setdefault((owner, SPECTATOR, path), _Trail()).follow(key, public.get(key, set()))


def leaves(value: object, prefix: Path = ()) -> Iterator[tuple[Path, Key]]:
    """(path, value) for every number and text inside `value`."""
    if isinstance(value, dict):
        for name, inner in value.items():
            yield from leaves(inner, (*prefix, str(name)))
    elif isinstance(value, list | tuple):
        for i, inner in enumerate(value):
            yield from leaves(inner, (*prefix, str(i)))
    elif isinstance(value, str):
        yield prefix, ("text", value)
    elif isinstance(value, int | float) and not isinstance(value, bool) and math.isfinite(value):
        yield prefix, ("number", float(value))


def _shape(path: Path) -> Path:
    """The path with list positions blanked: `visible_events.2.x` and `visible_events.0.x` are alike."""
    return tuple("#" if part.isdigit() else part for part in path)


def _index(flat: dict[Path, Key]) -> dict[Key, set[Path]]:
    index: dict[Key, set[Path]] = {}
    for path, key in flat.items():
        index.setdefault(key, set()).add(path)
    return index


def _dotted(path: Path) -> str:
    return ".".join(path) or "(the whole view)"
