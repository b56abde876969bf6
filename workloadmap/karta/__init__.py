"""Karta: NVIDIA Workload Map's own definition format, read unchanged and written from wmap's catalog.

``model`` (the ``run.ai/v1alpha1`` ``Karta`` object, field for field), ``validation`` (upstream's
rules), ``definition`` (a Karta as a catalog entry), ``jqengine`` (jq under the safety rules, in a
bounded child process), ``translate`` (JMESPath to jq) and ``export`` (wmap definitions as Karta
objects). Interpreting a Karta on a resource is the interpreter's job
(:mod:`workloadmap.interpreter.karta`).
"""

from .definition import KartaDefinition, is_karta, parse_karta
from .jqengine import JqEngine, JqLimits, JqProgram, check_safety, compile_jq, compile_many, default_engine
from .model import API_VERSION, KIND, Karta
from .validation import jq_fields, validate_karta

__all__ = [
    "API_VERSION",
    "KIND",
    "Karta",
    "KartaDefinition",
    "is_karta",
    "parse_karta",
    "validate_karta",
    "jq_fields",
    "JqEngine",
    "JqLimits",
    "JqProgram",
    "check_safety",
    "compile_jq",
    "compile_many",
    "default_engine",
]
