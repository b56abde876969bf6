"""Options and helpers that several commands share."""

from __future__ import annotations

from pathlib import Path
from typing import List, Optional

import typer

from workloadmap.catalog import Catalog

from . import output

CATALOG_HELP = (
    "Directory (or file) of extra definitions; replaces built-ins for the same kind. Repeatable. "
    "Also read from $WMAP_CATALOG."
)


def catalog_option():
    """The `--catalog DIR` option (repeatable)."""
    return typer.Option(None, "--catalog", help=CATALOG_HELP)


def load_catalog(dirs: Optional[List[Path]]) -> Catalog:
    """The built-in catalog plus user directories; a replaced built-in is noted on stderr."""
    catalog = Catalog.load([str(directory) for directory in dirs or []])
    for notice in catalog.notices:
        output.warn(f"notice: {notice}")
    return catalog


def worst_exit_code(codes: list[int]) -> int:
    """Invalid input (1) ranks above "no definition" (4); otherwise the highest code."""
    if 1 in codes:
        return 1
    return max(codes, default=0)


def parse_levels(levels: Optional[str]) -> Optional[List[str]]:
    """`--levels a,b,c` as a list (None when not given)."""
    if levels is None:
        return None
    return [level.strip() for level in levels.split(",") if level.strip()]
