"""The packages of `negotiation_platform` import each other without a cycle.

README.md's "Layers" table orders the packages (spec, games, engine, registry, arena, store, ...): a lower one never
imports a higher one, so each can be used and tested without the ones above it. The graph has a
node per subpackage and per top-level module (the package's `__init__` is the node
`negotiation_platform`) and an edge for every import of one by another, read from the source:
module-level imports, imports inside functions (run when called) and those under
`if TYPE_CHECKING:` (a typing cycle is still a cycle between layers), absolute and relative alike.
Imports by name at run time (`import_module("...")`, entry points) are not seen, and need not be:
they are how the core reaches plugins without depending on them.
"""

from __future__ import annotations

import ast
from pathlib import Path

import networkx as nx

import negotiation_platform

ROOT = Path(negotiation_platform.__file__).parent
PACKAGE = "negotiation_platform"


def module_name(path: Path) -> str:
    parts = path.relative_to(ROOT.parent).with_suffix("").parts
    return ".".join(parts[:-1] if parts[-1] == "__init__" else parts)


UNITS = {p.name for p in ROOT.iterdir() if (p / "__init__.py").exists()} | {
    p.stem for p in ROOT.glob("*.py") if p.stem != "__init__"
}


def unit(module: str) -> str | None:
    """The node a module (or a name imported from one) belongs to: its subpackage or top-level module,
    the package itself for a name from its `__init__`; None outside the package."""
    parts = module.split(".")
    if parts[0] != PACKAGE:
        return None
    return parts[1] if len(parts) > 1 and parts[1] in UNITS else PACKAGE


def imported(node: ast.Import | ast.ImportFrom, module: str, is_package: bool) -> list[str]:
    """The modules an import statement names (for `from P import a, b`: P.a and P.b, as they may be modules)."""
    if isinstance(node, ast.Import):
        return [alias.name for alias in node.names]
    base = node.module or ""
    if node.level:
        anchor = module.split(".") if is_package else module.split(".")[:-1]
        anchor = anchor[: len(anchor) - (node.level - 1)]
        base = ".".join([*anchor, *([node.module] if node.module else [])])
    return [f"{base}.{alias.name}" for alias in node.names]


def package_graph() -> nx.DiGraph:
    graph = nx.DiGraph()
    for path in sorted(ROOT.rglob("*.py")):
        if "deprecated-shim" in path.read_text(encoding="utf-8"):
            continue  # an alias at an old path imports its new home; it goes in the next release
        module = module_name(path)
        source = unit(module)
        graph.add_node(source)
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"), str(path))):
            if isinstance(node, ast.Import | ast.ImportFrom):
                for name in imported(node, module, path.name == "__init__.py"):
                    target = unit(name)
                    if target is not None and target != source:
                        graph.add_edge(source, target, where=str(path.relative_to(ROOT.parent)))
    return graph


def test_the_package_graph_has_no_cycle() -> None:
    graph = package_graph()
    assert {"games", "engine", "registry", "arena", "web", "research"} <= set(graph)
    assert graph.has_edge("registry", "games") and graph.has_edge("web", "games")  # the graph sees imports
    cycles = list(nx.simple_cycles(graph))
    assert not cycles, "\n".join(
        " -> ".join(f"{a} ({graph.edges[a, b]['where']})" for a, b in zip(cycle, [*cycle[1:], cycle[0]], strict=True))
        for cycle in cycles
    )


def test_the_board_helpers_former_name_still_works() -> None:
    from negotiation_platform.games import board_svg as svg
    from negotiation_platform.viewer import svg as former

    assert former.rect is svg.rect and set(former.__all__) <= set(dir(svg))


def ends_the_process_or_parses_options(node: ast.AST, module: str, is_package: bool) -> bool:
    """An import of argparse, a `SystemExit`, or a call of `exit` (`sys.exit`, `os._exit`, the builtin)."""
    if isinstance(node, ast.Import | ast.ImportFrom):
        return any(name.split(".")[0] == "argparse" for name in imported(node, module, is_package))
    if isinstance(node, ast.Name):
        return node.id in {"SystemExit", "exit", "quit"}
    return isinstance(node, ast.Attribute) and node.attr in {"exit", "_exit"}


def test_the_arena_neither_parses_options_nor_ends_the_process() -> None:
    """Options are parsed in `cli/` and reach the arena as a typed policy; what the arena cannot start
    with it raises as `CannotStart`, and the command line decides to exit."""
    found = [
        f"{path.relative_to(ROOT.parent)}:{node.lineno}"
        for path in sorted((ROOT / "arena").rglob("*.py"))
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"), str(path)))
        if ends_the_process_or_parses_options(node, module_name(path), path.name == "__init__.py")
    ]
    assert len(list((ROOT / "arena").rglob("*.py"))) > 10 and not found, found
