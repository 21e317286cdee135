"""The book's own package: everything the chapters and the build use beyond :mod:`posenc`.

:mod:`posenc` is the library a model imports; this package is the book around it, in layers
that only ever import downwards (``LAYERS`` in ``tests/test_layers.py`` declares the order of
both packages, and the test reads every import, those inside functions too):

* :mod:`book.glue`: how a chapter's code hands a number to its prose (myst-nb's ``glue``);
* :mod:`book.toy`, :mod:`book.demos` and :mod:`book.catalogue`: the data of the book, the
  tiny Transformer, the chapters' worked examples and the one registry of encodings;
* :mod:`book.experiments`: one toy per encoding, trained short and run long (chapters 10, 11),
  over seeds, and the passkey experiment (chapter 13);
* :mod:`book.figures`: the figures, pure matplotlib;
* :mod:`book.explorers`: the interactive explorers (live ipywidgets, pre-rendered HTML);
* :mod:`book.ext`: the Sphinx extensions of the Jupyter Book build;
* :mod:`book.tools`: the command-line tools, behind one entry point, ``python -m book``.

Importing this package imports nothing else; a chapter imports what it shows by name,
``from book.figures.sinusoidal import sinusoidal_heatmap``.
"""

__all__: list[str] = []
