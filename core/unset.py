"""The default of a service's keyword argument that a change may leave out (PATCH: only the
fields given change), told apart from None, which some fields take (an unsubscription date
cleared)."""

from typing import Any, Final


class _Unset:
    def __repr__(self) -> str:
        return "UNSET"


# Typed Any so that `when: datetime | None = UNSET` reads as the argument's own type.
UNSET: Final[Any] = _Unset()


def given(**arguments: Any) -> dict[str, Any]:
    """The arguments the caller gave, by name."""
    return {name: value for name, value in arguments.items() if value is not UNSET}
