"""Catalog expressions, one stage: JMESPath (with wmap's functions) and JSONPath, compiled once.

- ``expression``: :class:`Expression`, :func:`compile_expression` and the bounds every expression
  runs under (the stage's public names, re-exported here).
- ``functions``: wmap's JMESPath functions (``root()``, ``ref(name)``, arithmetic ...), bounded.
- ``runtime``: what generated code calls, and the bounded interpreter (the reference).
- ``compiler``: a JMESPath tree written as a Python function after its first steps.
- ``analysis``: what a tree does, read without evaluating it.
"""

from .expression import (
    LANGUAGES,
    MAX_EXPRESSION_LENGTH,
    MAX_EXPRESSION_NESTING,
    MAX_NUMBER,
    MAX_STEPS,
    MAX_VALUE_SIZE,
    Expression,
    compile_expression,
    field_path,
    is_plain_path,
)

__all__ = [
    "Expression",
    "compile_expression",
    "field_path",
    "is_plain_path",
    "LANGUAGES",
    "MAX_EXPRESSION_LENGTH",
    "MAX_EXPRESSION_NESTING",
    "MAX_STEPS",
    "MAX_VALUE_SIZE",
    "MAX_NUMBER",
]
