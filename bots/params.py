"""Bot parameters: declared once per bot class, parsed from spec text, printed canonically.

A bot class lists its parameters as :class:`Param` objects.  The spec parser hands the raw text
of each ``key=value`` to the parameter's kind, which either returns a value or raises
:class:`SpecError` naming the bot, the key and what was wrong.
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from typing import Any, Callable, Mapping


class SpecError(ValueError):
    """A player spec that cannot be built: unknown bot, unknown key, bad value, bad syntax."""


@dataclass(frozen=True)
class Threshold:
    """A pip threshold, either absolute (whole pips) or relative (percent of a pip count).

    ``reached(amount, pips)`` is the comparison every cube rule uses, written so that both
    engines compute it identically in float64:

    * absolute: ``amount >= value``
    * percent:  ``100.0 * amount >= value * pips``

    (``100.0 * amount`` is exact for any pip amount, and ``value * pips`` is exact whenever the
    percent is a whole number, so ``8%`` of 100 pips is exactly 8 pips, with no rounding.)
    """

    value: float
    percent: bool

    def reached(self, amount: int, pips: int) -> bool:
        if self.percent:
            return 100.0 * amount >= self.value * pips
        return amount >= self.value

    def within(self, amount: int, pips: int) -> bool:
        """``amount`` is at most the threshold (same arithmetic as :meth:`reached`)."""
        if self.percent:
            return 100.0 * amount <= self.value * pips
        return amount <= self.value

    def __str__(self) -> str:
        return f"{_number(self.value)}%" if self.percent else _number(self.value)


def _number(value: float) -> str:
    """Shortest text that reads back as the same number: 8 not 8.0, 0.25 not 0.250."""
    if float(value).is_integer():
        return str(int(value))
    return repr(float(value))


# --- kinds: text -> value, value -> canonical text ---------------------------------------


def parse_threshold(text: str) -> Threshold:
    return _threshold(text, signed=False)


OFF = "off"


def parse_signed_threshold_or_off(text: str) -> Threshold | None:
    """A threshold that may be negative (a trailing lead), or ``off`` (None): for rules that
    compare a lead that can be either side of zero and that a player may not use at all."""
    if text.strip().lower() == OFF:
        return None
    try:
        return _threshold(text, signed=True)
    except ValueError as error:
        raise ValueError(f"{error}, or off") from None


def _threshold(text: str, signed: bool) -> Threshold:
    raw = text.strip()
    percent = raw.endswith("%")
    number = raw[:-1].strip() if percent else raw
    try:
        value = float(number)
    except ValueError:
        raise ValueError(f"expected pips (e.g. 10) or a percent (e.g. 8%), got {text!r}") from None
    if not math.isfinite(value):
        raise ValueError(f"a threshold must be a finite number, got {text!r}")
    if value < 0 and not signed:
        raise ValueError(f"a threshold cannot be negative, got {text!r}")
    if not percent and not value.is_integer():
        raise ValueError(f"an absolute threshold is whole pips, got {text!r} (use a % for a fraction)")
    return Threshold(value, percent)


def parse_float(text: str) -> float:
    try:
        value = float(text)
    except ValueError:
        raise ValueError(f"expected a number, got {text!r}") from None
    if not math.isfinite(value):
        raise ValueError(f"expected a finite number, got {text!r}")
    return value


def parse_int(text: str) -> int:
    try:
        return int(text.strip())
    except ValueError:
        raise ValueError(f"expected a whole number, got {text!r}") from None


_TRUE = {"true", "yes", "on", "1"}
_FALSE = {"false", "no", "off", "0"}


def parse_bool(text: str) -> bool:
    lowered = text.strip().lower()
    if lowered in _TRUE:
        return True
    if lowered in _FALSE:
        return False
    raise ValueError(f"expected true or false, got {text!r}")


def format_value(value: Any) -> str:
    if value is None:  # an optional rule switched off
        return OFF
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, Threshold):
        return str(value)
    if isinstance(value, (int, float)):
        return _number(value)
    return str(value)


@dataclass(frozen=True)
class Param:
    """One parameter of a bot: its key, how to read it, its default and what it means."""

    key: str
    parse: Callable[[str], Any]
    default: Any
    help: str
    minimum: float | None = None
    maximum: float | None = None

    def read(self, bot: str, text: str) -> Any:
        try:
            value = self.parse(text)
        except ValueError as error:
            raise SpecError(f"{bot}: bad value for {self.key}: {error}") from None
        number = value.value if isinstance(value, Threshold) else value
        if isinstance(number, (int, float)) and not isinstance(number, bool):
            if self.minimum is not None and number < self.minimum:
                raise SpecError(f"{bot}: {self.key} must be at least {_number(self.minimum)}, got {text.strip()}")
            if self.maximum is not None and number > self.maximum:
                raise SpecError(f"{bot}: {self.key} must be at most {_number(self.maximum)}, got {text.strip()}")
        return value

    @property
    def default_text(self) -> str:
        return format_value(self.default)


class Bot:
    """Base of checker and cube bots: a registry name, declared parameters, a canonical spec.

    Subclasses set ``name``, ``description`` and ``PARAMS``; the constructor takes the
    parameters as keyword arguments (already parsed values) and stores them as attributes.
    ``check()`` may reject combinations of values.

    A bot with a fast kernel sets ``fast_name`` to a name declared in ``bgsim/layouts.py`` and
    hands over its own values by the names declared there (``fast_params``, ``fast_arrays``);
    the values of the capabilities its layout declares (``bearoff``, ``score_aware``) come from
    its parameter of the same name, and bgsim fills them in.
    """

    name = ""
    description = ""
    PARAMS: tuple[Param, ...] = ()
    fast_name = ""  # "": the reference engine only
    # layouts an instance takes by its parameters instead of ``fast_name`` (set in ``check``):
    # the layout's name -> the parameters of a spec that plays it, as a spec writes them
    fast_alternatives: Mapping[str, str] = {}

    def fast_params(self) -> Mapping[str, float]:
        """The fast kernel's own parameters by the names of its layout in ``bgsim/layouts.py``."""
        return {}

    def fast_arrays(self) -> Mapping[str, object]:
        """The fast kernel's own arrays by the names of its layout (numpy arrays, read-only)."""
        return {}

    def __init__(self, **values: Any) -> None:
        known = {param.key for param in self.PARAMS}
        for key in values:
            if key not in known:
                raise SpecError(f"{self.name}: unknown parameter {key!r}" + _choices(self.PARAMS))
        for param in self.PARAMS:
            setattr(self, param.key, values.get(param.key, param.default))
        self.check()

    def check(self) -> None:
        """Reject parameter combinations that make no sense (raise SpecError)."""

    @classmethod
    def from_text(cls, arguments: dict[str, str]) -> "Bot":
        params = {param.key: param for param in cls.PARAMS}
        values = {}
        for key, text in arguments.items():
            if key not in params:
                raise SpecError(f"{cls.name}: unknown parameter {key!r}" + _choices(cls.PARAMS))
            values[key] = params[key].read(cls.name, text)
        return cls(**values)

    @property
    def spec(self) -> str:
        """Canonical spec: the name, then the parameters that differ from their defaults."""
        changed = [
            f"{param.key}={format_value(getattr(self, param.key))}"
            for param in self.PARAMS
            if getattr(self, param.key) != param.default
        ]
        return f"{self.name}({','.join(changed)})" if changed else self.name

    def __repr__(self) -> str:
        return f"<{type(self).__name__} {self.spec}>"

    def __eq__(self, other: object) -> bool:
        return type(self) is type(other) and self.spec == other.spec  # type: ignore[attr-defined]

    def __hash__(self) -> int:
        return hash((type(self).__name__, self.spec))


def _choices(params: tuple[Param, ...]) -> str:
    if not params:
        return " (it takes no parameters)"
    return " (known: " + ", ".join(param.key for param in params) + ")"
