"""The book's Sphinx extensions, loaded by name from ``_config.yml`` (``extra_extensions``).

* :mod:`book.ext.book_site`: offline MathJax, parallel reading, the execution cache;
* :mod:`book.ext.quiz`: the ``{quiz}`` directive (``quiz_static/``);
* :mod:`book.ext.slides`: a reveal.js deck per chapter (``slides_template/``);
* :mod:`book.ext.handouts`: the print stylesheet and the PDF links (``handouts_static/``);
* :mod:`book.ext.editions`: the editions' languages, links, translated notebooks and words;
* :mod:`book.ext.downloads`: the wheels of posenc and book and the reader's pinned
  requirements, published in each edition (``wheels/``), and the launch buttons;
* :mod:`book.ext.reader`: listings without test markers, figures' alt text, the phone's menu
  buttons, scroll cues, link contrast (``reader_static/``);
* :mod:`book.ext.search`: the search's ranking and prose excerpts (``search_static/``);
* :mod:`book.ext.twin`: posenc's JavaScript twin, ``window.posenc``, on every page
  (``twin_static/``).
"""

__all__: list[str] = []
