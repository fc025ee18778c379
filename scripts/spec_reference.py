"""The spec's field reference, generated from the pydantic models of `negotiation_platform.spec`.

Used as an MkDocs hook (see mkdocs.yml): it replaces the marker line in docs/reference/spec.md with
one table per spec model (every field with its type, default, bounds and meaning, from the model's
`Field` descriptions) and the values of every choice, so the reference can never drift from the models.
Run it directly (`python scripts/spec_reference.py`) to print the same Markdown.
"""

from __future__ import annotations

import ast
import enum
import inspect
import itertools
import types
from typing import Any, Union, get_args, get_origin

from pydantic import BaseModel
from pydantic.fields import FieldInfo
from pydantic_core import PydanticUndefined

MARKER = "<!-- spec-fields -->"


def spec_models() -> list[type[BaseModel]]:
    """The models a spec is built of, in the order the module defines them (the payload bases excluded:
    they have no fields of their own)."""
    from negotiation_platform.spec import model as spec

    found = [
        value
        for value in vars(spec).values()
        if inspect.isclass(value) and issubclass(value, BaseModel) and value.__module__ == spec.__name__
    ]
    return [model for model in found if model.model_fields]


def spec_choices() -> list[type[enum.Enum]]:
    """The enumerations of the spec (turn orders, start rules, channels, …)."""
    from negotiation_platform.spec import model as spec

    return [
        value
        for value in vars(spec).values()
        if inspect.isclass(value) and issubclass(value, enum.Enum) and value.__module__ == spec.__name__
    ]


def _type_text(annotation: Any) -> str:
    origin = get_origin(annotation)
    if origin in (Union, types.UnionType):
        return " or ".join(_type_text(arg) for arg in get_args(annotation))
    if origin is tuple:
        args = get_args(annotation)
        return f"tuple of {_type_text(args[0])}" if len(args) == 2 and args[1] is Ellipsis else str(annotation)
    if origin is type:
        return "a pydantic model class"
    if origin is dict:
        return "JSON object"
    if annotation is type(None):
        return "None"
    if inspect.isclass(annotation) and issubclass(annotation, enum.Enum | BaseModel):
        return f"[`{annotation.__name__}`](#{annotation.__name__.lower()})"
    return f"`{getattr(annotation, '__name__', annotation)}`"


def _default_text(field: FieldInfo) -> str:
    if field.default_factory is not None:
        return f"`{field.default_factory()!r}`"  # type: ignore[call-arg]
    default = field.default
    if default is PydanticUndefined:
        return "required"
    if isinstance(default, enum.Enum):
        return f"`{default.value}`"
    if isinstance(default, BaseModel):
        return f"`{type(default).__name__}()`"
    if isinstance(default, type):
        return f"`{default.__name__}`"
    if isinstance(default, tuple):
        return "`(" + ", ".join(str(v.value if isinstance(v, enum.Enum) else v) for v in default) + ")`"
    return f"`{default!r}`"


def _bounds_text(field: FieldInfo) -> str:
    words = (
        ("ge", ">="),
        ("gt", ">"),
        ("le", "<="),
        ("lt", "<"),
        ("min_length", "length >="),
        ("max_length", "length <="),
    )
    bounds = [
        f"{word} {getattr(item, attr)}"
        for item in field.metadata
        for attr, word in words
        if getattr(item, attr, None) is not None
    ]
    bounds += [f"matches `{item.pattern}`" for item in field.metadata if getattr(item, "pattern", None)]
    return "; ".join(bounds)


def model_table(model: type[BaseModel]) -> str:
    """A model's heading, its docstring's first paragraph and a table of its fields."""
    doc = inspect.cleandoc(model.__doc__ or "").split("\n\n")[0].replace("\n", " ")
    rows = ["| field | type | default | bounds | meaning |", "|---|---|---|---|---|"]
    for name, field in model.model_fields.items():
        meaning = (field.description or "").replace("|", "\\|")
        cells = [f"`{name}`", _type_text(field.annotation), _default_text(field), _bounds_text(field), meaning]
        rows.append("| " + " | ".join(cells) + " |")
    return f"### {model.__name__}\n\n{doc}\n\n" + "\n".join(rows) + "\n"


def member_docs(choice: type[enum.Enum]) -> dict[str, str]:
    """The docstring under each member of an enumeration, read from its source (Python keeps none)."""
    body = ast.parse(inspect.getsource(choice)).body[0]
    assert isinstance(body, ast.ClassDef)
    docs = {}
    for node, following in itertools.pairwise(body.body):
        documented = isinstance(following, ast.Expr) and isinstance(following.value, ast.Constant)
        if isinstance(node, ast.Assign) and isinstance(node.targets[0], ast.Name) and documented:
            docs[node.targets[0].id] = " ".join(str(following.value.value).split())  # type: ignore[attr-defined]
    return docs


def choice_table(choice: type[enum.Enum]) -> str:
    """An enumeration's heading, and its values with their meaning."""
    doc = inspect.cleandoc(choice.__doc__ or "").split("\n\n")[0].replace("\n", " ")
    docs = member_docs(choice)
    rows = ["| value | meaning |", "|---|---|"]
    rows += [f"| `{member.value}` | {docs.get(member.name, '')} |" for member in choice]
    return f"### {choice.__name__}\n\n{doc}\n\n" + "\n".join(rows) + "\n"


def spec_markdown() -> str:
    """Every spec model's fields, then every choice's values."""
    parts = [
        "## Spec fields\n",
        *map(model_table, spec_models()),
        "## Spec choices\n",
        *map(choice_table, spec_choices()),
    ]
    return "\n".join(parts)


def on_page_markdown(markdown: str, page: Any, **_: Any) -> str:
    """MkDocs hook: fill the spec reference page."""
    if MARKER not in markdown:
        return markdown
    return markdown.replace(MARKER, spec_markdown())


if __name__ == "__main__":
    print(spec_markdown())
