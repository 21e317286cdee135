"""Chapter demonstrations: small worked examples that the book's pages run, not model code.

Nothing in a model needs these. They live apart from the encoding families so that
:mod:`posenc.attention`, :mod:`posenc.shaw` and the others hold only what a model imports.
One module per chapter topic, imported by name (``from book.demos.attention import
word_vectors``); this package itself exports nothing.
"""

__all__: list[str] = []
