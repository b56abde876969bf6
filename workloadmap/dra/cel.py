"""DRA's CEL device selectors, evaluated with cel-python (``celpy``), imported only when one is evaluated.

The environment follows ``k8s.io/dynamic-resource-allocation/cel/compile.go``: one variable
``device`` with ``driver``, ``attributes`` (domain -> name -> value) and ``capacity`` (domain ->
name -> quantity); an attribute name without a domain belongs to the driver's domain; looking up
an unknown domain gives an empty map, an unknown name inside a domain is an evaluation error
(the ``CELDeviceSelector`` comment in ``k8s.io/api/resource/v1/types.go``). Kubernetes' quantity
functions (``quantity``, ``isGreaterThan``, ``isLessThan``, ``compareTo``, ``asInteger``,
``asApproximateFloat``, ``sign``, ``isQuantity``) and ``lowerAscii``/``upperAscii`` are provided;
anything else the Kubernetes environment adds (``semver``, ``cel.bind``, optional types,
``includes``) is not, and an expression using it is *unknown*.

An expression that cannot be evaluated (it does not parse, uses what is not provided, errors on
the device, is too long, or exceeds the step budget) gives ``None``: unknown, never a match.
Bounds: the API's own length limit (``CELSelectorExpressionMaxLength``, 10 KiB) and a step
budget per evaluation (the evaluator's visits), in the spirit of the scheduler's cost limit.
"""

from __future__ import annotations

from dataclasses import dataclass
from fractions import Fraction
from functools import lru_cache
from typing import Any

from ..errors import InputError
from ..quantities import parse_quantity

__all__ = ["Device", "Verdict", "evaluate", "MAX_EXPRESSION_LENGTH", "STEP_BUDGET"]

MAX_EXPRESSION_LENGTH = 10 * 1024
"""``CELSelectorExpressionMaxLength`` (k8s.io/api/resource/v1/types.go)."""
STEP_BUDGET = 20_000
"""Evaluator steps one evaluation may take (the scheduler's cost limit is 1,000,000 cost units)."""


@dataclass(frozen=True, slots=True)
class Device:
    """A device as a selector sees it.

    Attributes:
        driver: the driver's name (``gpu.nvidia.com``), also the domain of unqualified names.
        attributes: (name, value) pairs, the name qualified or not, the value an int, bool or str
            (versions as strings); pairs, not a dict, so that a device is hashable and its verdicts kept.
        capacity: (name, exact amount) pairs.
    """

    driver: str
    attributes: tuple[tuple[str, int | bool | str], ...] = ()
    capacity: tuple[tuple[str, Fraction], ...] = ()


@dataclass(frozen=True, slots=True)
class Verdict:
    """What a selector says of a device: ``matches`` True/False, or None with the ``reason`` it is unknown."""

    matches: bool | None
    reason: str = ""


class _OutOfSteps(Exception):
    pass


@lru_cache(maxsize=1)
def _celpy() -> Any:
    """The cel-python modules and the bounded runner, built on first use (the import costs ~0.3 s)."""
    import celpy
    from celpy import celtypes
    from celpy.evaluation import CELEvalError, Evaluator

    class BoundedEvaluator(Evaluator):
        """Counts its visits, and those of the evaluators it makes for macros, against one budget."""

        def __init__(self, *args: Any, budget: list[int], **kwargs: Any) -> None:
            super().__init__(*args, **kwargs)
            self.budget = budget

        def _visit_tree(self, tree: Any) -> Any:  # every node, children included (lark's Interpreter)
            self.budget[0] -= 1
            if self.budget[0] < 0:
                raise _OutOfSteps()
            return super()._visit_tree(tree)

        def sub_evaluator(self, ast: Any) -> Any:
            return BoundedEvaluator(ast, activation=self.activation, budget=self.budget)

    class BoundedRunner(celpy.InterpretedRunner):
        def evaluate(self, context: Any) -> Any:
            evaluator = BoundedEvaluator(ast=self.ast, activation=self.new_activation(), budget=[STEP_BUDGET])
            return evaluator.evaluate(context)

    class Domains(celtypes.MapType):
        """An unknown domain is an empty map, as the scheduler's environment gives it."""

        def __getitem__(self, key: Any) -> Any:
            if key not in self:
                return celtypes.MapType({})
            return super().__getitem__(key)

    return celpy, celtypes, CELEvalError, BoundedRunner, Domains


class _Quantity:
    """A Kubernetes quantity inside CEL (``device.capacity[...]`` values, ``quantity("40Gi")``)."""

    __slots__ = ("amount",)

    def __init__(self, amount: Fraction) -> None:
        self.amount = amount

    def __eq__(self, other: object) -> bool:
        return isinstance(other, _Quantity) and other.amount == self.amount

    def __hash__(self) -> int:
        return hash(self.amount)


def _as_quantity(value: Any) -> _Quantity:
    if isinstance(value, _Quantity):
        return value
    raise TypeError(f"expected a quantity, got {type(value).__name__}")


def _functions() -> dict[str, Any]:
    _, celtypes, _, _, _ = _celpy()

    def quantity(text: Any) -> _Quantity:
        try:
            return _Quantity(parse_quantity(str(text)))
        except InputError as error:
            raise ValueError(str(error)) from None

    def is_quantity(text: Any) -> Any:
        try:
            parse_quantity(str(text))
        except InputError:
            return celtypes.BoolType(False)
        return celtypes.BoolType(True)

    def compare(left: Any, right: Any) -> int:
        a, b = _as_quantity(left).amount, _as_quantity(right).amount
        return (a > b) - (a < b)

    return {
        "quantity": quantity,
        "isQuantity": is_quantity,
        "isGreaterThan": lambda left, right: celtypes.BoolType(compare(left, right) > 0),
        "isLessThan": lambda left, right: celtypes.BoolType(compare(left, right) < 0),
        "compareTo": lambda left, right: celtypes.IntType(compare(left, right)),
        "sign": lambda value: celtypes.IntType((_as_quantity(value).amount > 0) - (_as_quantity(value).amount < 0)),
        "asInteger": lambda value: celtypes.IntType(_whole(_as_quantity(value).amount)),
        "isInteger": lambda value: celtypes.BoolType(_as_quantity(value).amount.denominator == 1),
        "asApproximateFloat": lambda value: celtypes.DoubleType(float(_as_quantity(value).amount)),
        "lowerAscii": lambda text: celtypes.StringType(str(text).lower()),
        "upperAscii": lambda text: celtypes.StringType(str(text).upper()),
    }


def _whole(amount: Fraction) -> int:
    if amount.denominator != 1:
        raise ValueError("quantity is not an integer")
    return amount.numerator


@lru_cache(maxsize=256)
def _program(expression: str) -> tuple[Any, str]:
    """The compiled program of an expression, or None and why it cannot be evaluated."""
    if len(expression.encode()) > MAX_EXPRESSION_LENGTH:
        return None, f"longer than {MAX_EXPRESSION_LENGTH} bytes"
    celpy, _, _, runner, _ = _celpy()
    environment = celpy.Environment(runner_class=runner)
    try:
        return environment.program(environment.compile(expression), functions=_functions()), ""
    except Exception as error:  # celpy's parse errors are of several classes
        return None, f"does not parse: {str(error).splitlines()[0] if str(error) else type(error).__name__}"


def _activation(device: Device) -> Any:
    _, celtypes, _, _, domain_map = _celpy()

    def value(raw: Any) -> Any:
        if isinstance(raw, bool):
            return celtypes.BoolType(raw)
        if isinstance(raw, int):
            return celtypes.IntType(raw)
        if isinstance(raw, Fraction):
            return _Quantity(raw)
        return celtypes.StringType(str(raw))

    def domains(values: tuple[tuple[str, Any], ...]) -> Any:
        grouped: dict[Any, dict[Any, Any]] = {}
        for name, raw in values:
            domain, _, short = name.rpartition("/")
            inner = grouped.setdefault(celtypes.StringType(domain or device.driver), {})
            inner[celtypes.StringType(short)] = value(raw)
        return domain_map({key: celtypes.MapType(inner) for key, inner in grouped.items()})

    return {
        "device": celtypes.MapType(
            {
                celtypes.StringType("driver"): celtypes.StringType(device.driver),
                celtypes.StringType("attributes"): domains(device.attributes),
                celtypes.StringType("capacity"): domains(device.capacity),
            }
        )
    }


def evaluate(expression: str, device: Device) -> Verdict:
    """Whether ``device`` satisfies the selector ``expression`` (None when that cannot be known)."""
    return _evaluate(expression, device)


@lru_cache(maxsize=4096)
def _evaluate(expression: str, device: Device) -> Verdict:
    program, problem = _program(expression)
    if program is None:
        return Verdict(None, f"CEL expression {problem}")
    _, celtypes, eval_error, _, _ = _celpy()
    try:
        result = program.evaluate(_activation(device))
    except _OutOfSteps:
        return Verdict(None, f"CEL expression took more than {STEP_BUDGET:,} steps")
    except eval_error as error:
        return Verdict(None, f"CEL runtime error: {_first(error)}")
    except Exception as error:  # a shimmed function's refusal, or celpy's own failure on this input
        return Verdict(None, f"CEL runtime error: {type(error).__name__}: {_first(error)}")
    if isinstance(result, eval_error):
        return Verdict(None, f"CEL runtime error: {_first(result)}")
    if not isinstance(result, celtypes.BoolType):
        return Verdict(None, f"CEL expression gave {type(result).__name__}, not a bool")
    return Verdict(bool(result))


def _first(error: BaseException) -> str:
    args = error.args
    text = str(args[0]) if args else str(error)
    return text.splitlines()[0][:200] if text else type(error).__name__
