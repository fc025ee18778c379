"""`Registry`: finds games, agents and transports in installed distributions through entry points.

The built-in games are registered through the same entry points as any third-party package.
A `Registry` holds no global state, so other tools can create and embed as many as they like.
A broken plugin (import error, invalid spec, duplicate id, failing hook) is recorded in
`problems` with its name and the reason, and everything else still loads.
"""

from __future__ import annotations

import functools
import importlib.metadata
import inspect
import warnings
from collections.abc import Callable, Iterable, Mapping
from dataclasses import dataclass
from typing import TypeGuard, TypeVar

import pluggy
from pydantic import BaseModel, JsonValue

from negotiation_platform.errors import ErrorCode, NegotiationError
from negotiation_platform.games.base_game import BaseGame, GameConfig
from negotiation_platform.registry import hookspecs
from negotiation_platform.registry.kernel_factory import KernelFactory, as_kernel_factory
from negotiation_platform.registry.plugin_types import AgentFactory, TransportPlugin
from negotiation_platform.spec import GameSpec

GAMES_GROUP = "negotiation_platform.games"
AGENTS_GROUP = "negotiation_platform.agents"
TRANSPORTS_GROUP = "negotiation_platform.transports"
ENTRY_POINT_GROUPS = (GAMES_GROUP, AGENTS_GROUP, TRANSPORTS_GROUP)
OWN_DISTRIBUTION = "negotiation-platform"
T = TypeVar("T")


class PluginWarning(UserWarning):
    """A plugin loaded but will contribute less than it seems to (no `@hookimpl` where one was meant)."""


@dataclass(frozen=True)
class PluginProblem:
    """Why a plugin, or something it offered, was left out."""

    plugin: str
    source: str | None
    reason: str


@dataclass(frozen=True)
class GameEntry:
    """A registered game and where it came from."""

    game_id: str
    cls: type[BaseGame[GameConfig]]
    plugin: str
    source: str | None

    @property
    def spec(self) -> GameSpec:
        return self.cls.spec

    def summary(self) -> dict[str, str | list[str]]:
        roles = self.spec.roles
        return {
            "id": self.game_id,
            "title": self.spec.title,
            "roles": list(roles.names) or f"{roles.min_players}..{roles.max_players} seats",
            "source": self.source or "(registered in code)",
        }


class Registry:
    """Discovers plugins and answers what games, agents and transports exist."""

    def __init__(self, *, entry_points: bool = True, groups: Iterable[str] = ENTRY_POINT_GROUPS) -> None:
        self._pm = pluggy.PluginManager(hookspecs.PROJECT)
        self._pm.add_hookspecs(hookspecs)
        self._sources: dict[str, str | None] = {}
        self._load_problems: list[PluginProblem] = []
        self._named: dict[str, dict[str, object]] = {}
        self._games: dict[str, GameEntry] | None = None
        self._game_problems: list[PluginProblem] = []
        if entry_points:
            self.load_entry_points(groups)

    # --- loading --------------------------------------------------------------------------

    def load_entry_points(self, groups: Iterable[str] = ENTRY_POINT_GROUPS) -> None:
        """Import and register every plugin named by an entry point in `groups`."""
        for group in groups:
            found = importlib.metadata.entry_points(group=group)
            for ep in sorted(found, key=_load_order):
                source = ep.dist.name if ep.dist is not None else None
                try:
                    plugin = ep.load()
                except Exception as exc:
                    self._load_problems.append(
                        PluginProblem(ep.name, source, f"could not import {ep.value}: {_short(exc)}")
                    )
                    continue
                if self._pm.is_registered(plugin):
                    continue
                self.register(plugin, name=ep.name, source=source)
                _warn_unmarked_hooks(plugin, f"{ep.name} = {ep.value!r} in group {group!r}")

    def register(self, plugin: object, name: str | None = None, source: str | None = None) -> None:
        """Register a plugin object (a module or an instance with `@hookimpl` functions)."""
        name = name or getattr(plugin, "__name__", None) or repr(plugin)
        try:
            self._pm.register(plugin, name=name)
        except Exception as exc:
            self._load_problems.append(PluginProblem(name, source, f"could not register: {_short(exc)}"))
            return
        self._sources[name] = source
        self._games = None
        self._named.clear()

    # --- answers --------------------------------------------------------------------------

    @property
    def problems(self) -> list[PluginProblem]:
        """Everything that was left out, and why."""
        self.games()
        return [*self._load_problems, *self._game_problems]

    def games(self) -> dict[str, GameEntry]:
        """Every valid game by id, in load order."""
        if self._games is None:
            self._games, self._game_problems = {}, []
            for plugin, offered in self._call_each("register_games"):
                for cls in (
                    offered if isinstance(offered, Iterable) else self._misshapen(plugin, "register_games", offered)
                ):
                    self._add_game(plugin, cls)
        return dict(self._games)

    def game(self, game_id: str) -> GameEntry:
        entry = self.games().get(game_id)
        if entry is None:
            raise NegotiationError(
                ErrorCode.UNKNOWN_GAME,
                f"No game {game_id!r}; available: {sorted(self.games())}.",
            )
        return entry

    def agents(self) -> dict[str, AgentFactory]:
        """Agent factories by name (see the `register_agents` hook); an offer that is not callable is left
        out and reported in `problems`."""
        return self._checked_named("register_agents", _is_agent_factory, "is not an agent factory")

    def transports(self) -> dict[str, TransportPlugin]:
        """Transports by name (see the `register_transports` hook); an offer without a transport's methods
        is left out and reported in `problems`."""
        return self._checked_named("register_transports", _is_transport, "is not a transport")

    def kernels(self) -> dict[str, KernelFactory]:
        """JAX kernel factories by game id (see `kernel_factory`); an offer that is not one is left out
        and reported in `problems`."""
        factories: dict[str, KernelFactory] = {}
        for game_id, offered in self._merge_named("register_kernels").items():
            factory = as_kernel_factory(game_id, offered)
            if factory is None:
                problem = PluginProblem("register_kernels", None, f"kernel for {game_id!r} is not a KernelFactory")
                if problem not in self._load_problems:
                    self._load_problems.append(problem)
                continue
            factories[game_id] = factory
        return factories

    def render_board(self, game_id: str, view: dict[str, JsonValue], events: list[dict[str, JsonValue]]) -> str | None:
        """A game's board for the viewer from the first plugin that draws it; None when none does. A
        renderer that fails is reported in `problems` and the viewer shows no board, not an error."""
        try:
            board: str | None = self._pm.hook.render_board(game_id=game_id, view=view, events=events)
        except Exception as exc:
            problem = PluginProblem("render_board", None, f"drawing {game_id!r} failed: {_short(exc)}")
            if problem not in self._load_problems:
                self._load_problems.append(problem)
            return None
        return board if isinstance(board, str) else None

    # --- internals ------------------------------------------------------------------------

    def _checked_named(self, hook_name: str, check: Callable[[object], TypeGuard[T]], reason: str) -> dict[str, T]:
        """What `_merge_named` offers under `hook_name` that passes `check`; each other offer reported once."""
        checked: dict[str, T] = {}
        for name, offered in self._merge_named(hook_name).items():
            if check(offered):
                checked[name] = offered
                continue
            problem = PluginProblem(hook_name, None, f"{name!r} {reason}")
            if problem not in self._load_problems:
                self._load_problems.append(problem)
        return checked

    def _call_each(self, hook_name: str) -> list[tuple[str, object]]:
        """Call a hook plugin by plugin, so one failing plugin cannot hide the others."""
        results = []
        for impl in getattr(self._pm.hook, hook_name).get_hookimpls():
            name = self._pm.get_name(impl.plugin) or impl.plugin_name
            try:
                results.append((name, impl.function()))
            except Exception as exc:
                self._load_problems.append(
                    PluginProblem(name, self._sources.get(name), f"{hook_name} failed: {_short(exc)}")
                )
        return results

    def _merge_named(self, hook_name: str) -> dict[str, object]:
        """What every plugin offers under `hook_name`, by name; asked once until a plugin is added (callers
        look agents and kernels up per match, and a failing plugin must be reported once)."""
        if hook_name not in self._named:
            self._named[hook_name] = self._collect_named(hook_name)
        return dict(self._named[hook_name])

    def _collect_named(self, hook_name: str) -> dict[str, object]:
        merged: dict[str, object] = {}
        for plugin, offered in self._call_each(hook_name):
            named = offered if isinstance(offered, Mapping) else dict(self._misshapen(plugin, hook_name, offered))
            for key, value in named.items():
                if key in merged:
                    self._load_problems.append(
                        PluginProblem(plugin, self._sources.get(plugin), f"duplicate name {key!r} in {hook_name}")
                    )
                    continue
                merged[key] = value
        return merged

    def _misshapen(self, plugin: str, hook_name: str, offered: object) -> tuple[()]:
        """Nothing from a hook that answered neither None nor its shape (a list of games, a mapping of
        names), and the reason in `problems`."""
        if offered is not None:
            reason = f"{hook_name} returned {type(offered).__name__}, not what the hook specifies"
            self._load_problems.append(PluginProblem(plugin, self._sources.get(plugin), reason))
        return ()

    def _add_game(self, plugin: str, cls: object) -> None:
        assert self._games is not None
        source = self._sources.get(plugin)
        if not _is_game_class(cls):
            self._game_problems.append(PluginProblem(plugin, source, f"{cls!r} is not a BaseGame subclass"))
            return
        reason = _invalid_game_reason(cls)
        if reason is not None:
            self._game_problems.append(PluginProblem(plugin, source, reason))
            return
        game_id = cls.spec.id
        if game_id in self._games:
            other = self._games[game_id]
            self._game_problems.append(
                PluginProblem(
                    plugin, source, f"duplicate game id {game_id!r}: already provided by plugin {other.plugin!r}"
                )
            )
            return
        self._games[game_id] = GameEntry(game_id=game_id, cls=cls, plugin=plugin, source=source)


@functools.cache
def installed_registry() -> Registry:
    """Every installed plugin, loaded once per process: for code that only reads what is installed (a
    client's seat names, a tournament's worker processes), where loading the plugins again per call would
    cost more than the call. Anything that needs its own plugins builds its own `Registry`."""
    return Registry()


def _warn_unmarked_hooks(plugin: object, entry_point: str) -> None:
    """Warn when an entry point's module offers nothing: hook functions without `@hookimpl` are never called."""
    marked = {name for name in dir(plugin) if hasattr(getattr(plugin, name, None), f"{hookspecs.PROJECT}_impl")}
    hooks = {name for name, hook in inspect.getmembers(hookspecs) if hasattr(hook, f"{hookspecs.PROJECT}_spec")}
    unmarked = sorted(name for name in hooks - marked if callable(getattr(plugin, name, None)))
    if unmarked:
        warnings.warn(
            f"plugin entry point {entry_point}: {', '.join(unmarked)} lack @hookimpl "
            "(from negotiation_platform.registry import hookimpl), so they are never called",
            PluginWarning,
            stacklevel=3,
        )
    elif not marked:
        warnings.warn(
            f"plugin entry point {entry_point} has no @hookimpl functions, so it contributes nothing",
            PluginWarning,
            stacklevel=3,
        )


def _is_game_class(cls: object) -> TypeGuard[type[BaseGame[GameConfig]]]:
    return isinstance(cls, type) and issubclass(cls, BaseGame)


def _invalid_game_reason(cls: type[BaseGame[GameConfig]]) -> str | None:
    if not (isinstance(cls.Config, type) and issubclass(cls.Config, GameConfig)):
        return f"{cls.__name__}.Config is not a GameConfig model"
    try:
        spec = cls.spec
    except Exception as exc:
        return f"invalid spec in {cls.__name__}: {_short(exc)}"
    if not isinstance(spec, GameSpec):
        return f"{cls.__name__}.spec is {type(spec).__name__}, not a GameSpec"
    for action in (a for p in spec.phases for a in p.actions):
        if not issubclass(action.payload, BaseModel):
            return f"{cls.__name__}: payload of {action.name!r} is not a pydantic model"
    return None


def _load_order(ep: importlib.metadata.EntryPoint) -> tuple[bool, str, str]:
    """The project's own plugins first, then by distribution and name, so duplicates resolve the same way every time."""
    dist = ep.dist.name if ep.dist is not None else ""
    return (dist != OWN_DISTRIBUTION, dist, ep.name)


def _short(exc: BaseException) -> str:
    first_line = str(exc).strip().splitlines()[0] if str(exc).strip() else ""
    return f"{type(exc).__name__}: {first_line}" if first_line else type(exc).__name__


def _is_agent_factory(offered: object) -> TypeGuard[AgentFactory]:
    """Callable, so a factory as far as can be told before it is called (`make_agent` checks what it makes)."""
    return callable(offered)


_TRANSPORT_METHODS = ("add_serve_arguments", "serve", "connects_to", "connect")


def _is_transport(offered: object) -> TypeGuard[TransportPlugin]:
    """Has a transport's name, summary and methods (`TransportPlugin`)."""
    named = all(isinstance(getattr(offered, field, None), str) for field in ("name", "summary"))
    return named and all(callable(getattr(offered, method, None)) for method in _TRANSPORT_METHODS)
