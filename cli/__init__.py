"""The ``wmap`` command line: a thin typer layer over the :mod:`workloadmap` library."""
