"""Building an output record (a response schema, a prompt's dataclass) from an object whose
attributes carry most of its fields under the same names: pydantic's ``from_attributes``, with the
fields the object does not have as such given beside it."""

from __future__ import annotations

import dataclasses
from typing import Any, TypeVar, cast

from pydantic import BaseModel

T = TypeVar("T")


def field_names(cls: type) -> list[str]:
    """The fields of a pydantic model or a dataclass, in their order."""
    if isinstance(cls, type) and issubclass(cls, BaseModel):
        return list(cls.model_fields)
    return [f.name for f in dataclasses.fields(cast(Any, cls))]


def from_attributes(cls: type[T], obj: object, **given: Any) -> T:  # noqa: ANN401
    """``cls`` with each field read from ``obj``'s attribute of the same name, except those
    ``given`` (computed, renamed or formatted); an attribute ``obj`` lacks is an error, as in
    pydantic's ``from_attributes``."""
    read = {name: getattr(obj, name) for name in field_names(cls) if name not in given}
    return cls(**read, **given)
