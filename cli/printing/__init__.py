"""How results are written: writers, -o formats, the terminal, escaping and numbers in words.

The writers (machine dumps, kubectl tables, trees), the ``-o`` formats with kubectl's JSONPath, what the
terminal can show (width, colour, glyphs), escaping of untrusted text, and counts and units in words.
"""
