"""The book's command-line tools, each run as ``python -m book COMMAND`` (:mod:`book.__main__`).

* ``build`` (:mod:`book.tools.build_book`), ``handouts`` (:mod:`book.tools.build_handouts`),
  ``check-site`` (:mod:`book.tools.check_site`): build, print and check the site;
* ``i18n`` (:mod:`book.tools.i18n`): the translation catalogues;
* ``nb`` (:mod:`book.tools.nbtool`): notebook housekeeping;
* ``figure-sizes`` (:mod:`book.tools.figure_text_sizes`): the figures' smallest text;
* ``sweep`` (:mod:`book.tools.hostile_sweep`): bad inputs against the whole public API.
"""

__all__: list[str] = []
