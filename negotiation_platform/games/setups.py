"""What every game of one class under one config shares: the parsed config, the spec built from
it and the rules text rendered from that; built once and shared, never once per match.

Configs come from clients, so the cache is bounded (least recently used out first), and keyed by
the exact JSON text strict validation reads: the same key always parses to the same config.
"""

from __future__ import annotations

import functools
import threading
from collections import OrderedDict
from collections.abc import Mapping
from typing import TYPE_CHECKING

from pydantic import BaseModel, ValidationError

from negotiation_platform.spec import GameSpec
from negotiation_platform.spec.rules_text import render_rules
from negotiation_platform.wire.strict_json import strict_json

if TYPE_CHECKING:  # base_game builds its setups here
    from negotiation_platform.games.base_game import BaseGame, ConfigInput, GameConfig

MAX_SETUPS = 512
"""Game classes × configs kept; a tournament or a server uses a handful."""


class Setup:
    """A parsed config and its spec (both frozen, so every game may share them)."""

    __slots__ = ("__dict__", "settings", "spec")

    def __init__(self, settings: BaseModel, spec: GameSpec) -> None:
        self.settings = settings
        self.spec = spec

    @functools.cached_property
    def rules_text(self) -> str:
        """The plain-language rules of the spec, rendered on first use."""
        return render_rules(self.spec)


SetupKey = tuple[type, type | None, bytes]
_setups: OrderedDict[SetupKey, Setup] = OrderedDict()
_by_settings: dict[tuple[type, int], tuple[SetupKey, Setup]] = {}
"""The cached setups by (class, id of their parsed config): a config a setup parsed, handed back (an
arena starts its matches with the config it parsed), is its setup, with no JSON text to key it by.
The setup holds its config, so an id here is never reused while its entry is kept."""
_lock = threading.Lock()


def shared_setup(game_cls: type[BaseGame[GameConfig]], config: ConfigInput) -> Setup:
    """The setup of a game class (its `Config`, `parse_config` and `build_spec`) under `config`: from
    the cache, or parsed (raising pydantic's ValidationError for a bad config, never cached) and built."""
    if isinstance(config, BaseModel):
        known = _by_settings.get((game_cls, id(config)))
        if known is not None and known[1].settings is config:
            with _lock:
                if _setups.get(known[0]) is known[1]:
                    _setups.move_to_end(known[0])
                    return known[1]
    key = _key(game_cls, config)
    if key is not None:
        with _lock:
            found = _setups.get(key)
            if found is not None:
                _setups.move_to_end(key)
                return found
    settings = game_cls.parse_config(config)
    setup = Setup(settings, game_cls.build_spec(settings))
    if key is not None:
        with _lock:
            _setups[key] = setup
            _by_settings[game_cls, id(setup.settings)] = key, setup
            if len(_setups) > MAX_SETUPS:
                (cls, _, _), dropped = _setups.popitem(last=False)
                if _by_settings.get((cls, id(dropped.settings)), (None, None))[1] is dropped:
                    del _by_settings[cls, id(dropped.settings)]
    return setup


def _key(game_cls: type[BaseGame[GameConfig]], config: object) -> SetupKey | None:
    """The class, the config's own class (None for plain data) and the config's JSON text."""
    if config is None or (type(config) is dict and not config):
        return game_cls, None, b"{}"  # the defaults: the JSON text of an empty config
    if isinstance(config, game_cls.Config):
        return game_cls, type(config), config.model_dump_json().encode()
    if isinstance(config, Mapping):
        try:
            return game_cls, None, strict_json(game_cls.Config, dict(config))
        except ValidationError:
            return None  # not JSON: parsing refuses it
    return None
