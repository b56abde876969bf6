"""How results are written: views, writers, -o formats, the terminal, escaping and numbers in words.

Each command's views (``views``: the ``-o`` values and what each writes), the writers (machine dumps,
kubectl tables, trees), the ``-o`` formats with kubectl's JSONPath, what the terminal can show (width,
colour, glyphs), escaping of untrusted text, counts and units in words, and help texts deferred until
help is printed.
"""
