"""Kinds of components, each declared beside its base class.

A kind is a name, the base class every component of that kind derives from,
the keyword arguments its builder passes besides the configuration's values
(``runtime``: a predictor is built with ``input_size`` and ``num_classes``),
and an interface: the base's methods marked ``abc.abstractmethod``. The
registry checks a component against its kind when it is registered, so a
part of the wrong interface is refused at import, not in its first forward::

    @kind("predictor", runtime=("input_size", "num_classes"))
    class Predictor(nn.Module):
        @abstractmethod
        def forward(self, pooled: torch.Tensor) -> torch.Tensor: ...

A ``configured`` kind (models) takes its values from its configuration only:
its ``__init__`` parameters are configuration fields, runtime arguments and
``slots`` (the parts of its dependency fields, built by field name), none
with a default of its own, so there is one set of defaults: the
configuration's, which ``--cfg job`` shows.

The base classes are not imported here; this module sits below them.
"""
from __future__ import annotations

import inspect
from collections.abc import Collection
from dataclasses import dataclass

#: The parameter through which a configured component receives the parts of its dependency fields.
SLOTS = "slots"


class RegistrationError(TypeError):
    """A component or configuration that cannot be registered as written."""


@dataclass(frozen=True)
class Kind:
    name: str
    base: type
    runtime: tuple[str, ...] = ()
    configured: bool = False

    @property
    def interface(self) -> tuple[str, ...]:
        """The base's abstract methods (and properties): what every component of this kind implements."""
        return abstract_members(self.base)

    def check(self, name: str, component: type, fields: Collection[str] = (), slots: Collection[str] = ()) -> None:
        """Refuse ``component`` (registered as ``name``) unless it fits this kind; ``fields``: its configuration's
        plain fields, ``slots``: its dependency fields (for a configured kind)."""
        where = f"{self.name} {name!r}"
        base = _qualified(self.base)
        if not (isinstance(component, type) and issubclass(component, self.base)):
            shown = _qualified(component) if isinstance(component, type) else repr(component)
            raise RegistrationError(f"{where}: {shown} does not derive from {base}, the base of kind {self.name!r}")
        own = _qualified(component)
        missing = abstract_members(component)
        if missing:
            member = missing[0]
            raise RegistrationError(f"{where}: {own} does not implement {base}.{member}"
                                    f"{_signature_text(getattr(self.base, member, None))}")
        for member in self.interface:
            declared, implemented = getattr(self.base, member), getattr(component, member)
            if callable(declared) and callable(implemented) and not _accepts(implemented, declared):
                raise RegistrationError(f"{where}: {own}.{member}{_signature_text(implemented)} cannot be called as "
                                        f"{base}.{member}{_signature_text(declared)}")
        init = inspect.signature(component.__init__)
        for argument in self.runtime:
            if not _takes(init, argument):
                raise RegistrationError(f"{where}: {own}.__init__ does not take {argument!r}, which the builder of "
                                        f"kind {self.name!r} passes (runtime: {', '.join(self.runtime)})")
        if self.configured:
            self._check_configured(where, component, set(fields), set(slots))

    def _check_configured(self, where: str, component: type, fields: set[str], slots: set[str]) -> None:
        """Every ``__init__`` from ``component`` up to the base names only fields, runtime arguments and
        ``slots``, with no default; and every field is taken by one of them."""
        allowed = fields | set(self.runtime) | {SLOTS}
        taken: set[str] = set()
        for klass in component.__mro__:
            if not issubclass(klass, self.base) or "__init__" not in klass.__dict__:
                continue
            for parameter in list(inspect.signature(klass.__dict__["__init__"]).parameters.values())[1:]:
                if parameter.kind in (parameter.VAR_POSITIONAL, parameter.VAR_KEYWORD):
                    continue
                label = f"{where}: {_qualified(klass)}.__init__({parameter.name}"
                if parameter.name in slots:
                    raise RegistrationError(f"{label}): {parameter.name!r} is a slot of the configuration; build "
                                            f"it by its field name, self.build_slot({parameter.name!r}, ...)")
                if parameter.name not in allowed:
                    raise RegistrationError(f"{label}): not a field of the configuration; fields: "
                                            f"{', '.join(sorted(fields))}")
                if parameter.default is not parameter.empty:
                    raise RegistrationError(f"{label}={parameter.default!r}): a default beside the "
                                            f"configuration's; the value comes from the configuration field, so "
                                            f"remove it here (and give the default in the field)")
                taken.add(parameter.name)
        untaken = sorted(fields - taken)
        if untaken:
            raise RegistrationError(f"{where}: configuration field {untaken[0]!r} is taken by no __init__ of "
                                    f"{_qualified(component)}")


_KINDS: dict[str, Kind] = {}


def kind(name: str, *, runtime: Collection[str] = (), configured: bool = False):
    """Class decorator declaring ``name`` as the kind whose components derive from the decorated class."""

    def declare(base: type) -> type:
        previous = _KINDS.get(name)
        if previous is not None and _qualified(previous.base) != _qualified(base):
            raise RegistrationError(f"kind {name!r} is declared by {_qualified(previous.base)} already; "
                                    f"{_qualified(base)} cannot declare it too")
        _KINDS[name] = Kind(name, base, tuple(runtime), configured)
        return base

    return declare


def declared(name: str) -> Kind:
    try:
        return _KINDS[name]
    except KeyError:
        raise RegistrationError(f"unknown component kind {name!r}; declared kinds: {', '.join(sorted(_KINDS))} "
                                f"(a kind is declared with @kind(...) on its base class)") from None


def kinds() -> dict[str, Kind]:
    return dict(_KINDS)


def abstract_members(cls: type) -> tuple[str, ...]:
    return tuple(sorted(name for name in dir(cls) if getattr(getattr(cls, name, None), "__isabstractmethod__", False)))


def _qualified(cls: type) -> str:
    return f"{cls.__module__}.{cls.__qualname__}"


def _signature_text(function) -> str:
    try:
        return str(inspect.signature(function))
    except (TypeError, ValueError):
        return ""


def _parameters(function) -> list[inspect.Parameter]:
    parameters = list(inspect.signature(function).parameters.values())
    return parameters[1:] if parameters and parameters[0].name in ("self", "cls") else parameters


def _accepts(implemented, declared) -> bool:
    """Whether every call the declared signature allows is a call the implementation accepts."""
    try:
        mine, theirs = _parameters(implemented), _parameters(declared)
    except (TypeError, ValueError):
        return True  # builtins without a signature: nothing to compare
    positional = (inspect.Parameter.POSITIONAL_ONLY, inspect.Parameter.POSITIONAL_OR_KEYWORD)
    their_positional = [p for p in theirs if p.kind in positional]
    their_keywords = {p.name for p in theirs if p.kind is inspect.Parameter.KEYWORD_ONLY}
    my_positional = [p for p in mine if p.kind in positional]
    var_positional = any(p.kind is inspect.Parameter.VAR_POSITIONAL for p in mine)
    var_keyword = any(p.kind is inspect.Parameter.VAR_KEYWORD for p in mine)
    if not var_positional and len(my_positional) < len(their_positional):
        return False
    if sum(p.default is p.empty for p in my_positional) > len(their_positional):
        return False
    my_keywords = {p.name for p in mine if p.kind in (inspect.Parameter.KEYWORD_ONLY,
                                                       inspect.Parameter.POSITIONAL_OR_KEYWORD)}
    if not var_keyword and their_keywords - my_keywords:
        return False
    return not any(p.kind is inspect.Parameter.KEYWORD_ONLY and p.default is p.empty and p.name not in their_keywords
                   for p in mine)


def _takes(signature: inspect.Signature, name: str) -> bool:
    parameters = signature.parameters
    return name in parameters or any(p.kind is inspect.Parameter.VAR_KEYWORD for p in parameters.values())
