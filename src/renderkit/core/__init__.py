"""Shared plumbing of the capability packages.

Every capability (:mod:`renderkit.image`, :mod:`renderkit.pdf`, :mod:`renderkit.screenshot`,
:mod:`renderkit.speech`, :mod:`renderkit.parsing`) builds on these modules, and none imports
another capability's private modules: what two of them need lives here.

- :mod:`.errors`: the :class:`~renderkit.RenderkitError` tree.
- :mod:`.converter`: the one cattrs converter (dicts in either naming variant -> models).
- :mod:`.validators`: attrs validators shared by the request models.
- :mod:`.schema`: JSON Schema generated from the models (OpenAPI, MCP tool schemas).
- :mod:`.fields`: the ``data`` fields a template does not display, as warnings or refusals.
- :mod:`.results`: what every file result shares (save, Jupyter display).
- :mod:`.media`: formats, MIME types and the pixel budget.
- :mod:`.colors`: colour parsing and WCAG contrast maths.
- :mod:`.netpolicy`: which URLs the browser may reach.
- :mod:`.shell`: the warm page's fonts and renderer script.
- :mod:`.pdfium`: PDFium calls, serialised off the event loop.
- :mod:`.workers`: bounded pools for CPU-heavy work (OCR, audio encoding, PDF reading).
- :mod:`.retry`: retries with ``Retry-After`` for the remote providers.
- :mod:`.times`: UTC timestamps as the API writes them.
- :mod:`.cli`: what the capability commands share (``--data``, ``-o``, exit codes).

It imports nothing from the packages built on it (the capabilities, :mod:`renderkit.browser`,
:mod:`renderkit.storage`): the browser's command-line flags live in
:mod:`renderkit.browser.cli`, the storing of results in :mod:`renderkit.storage.files`.

Users import the public names from :mod:`renderkit` instead; the server imports these modules
directly. This package is not a stable API of its own.
"""
