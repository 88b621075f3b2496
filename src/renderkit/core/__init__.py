"""Shared plumbing of the capability packages: errors, the converter, validators, JSON Schema
generation, results, colour maths, the URL policy, storage hand-off and the warm-page shell.

Every capability (:mod:`renderkit.image`, :mod:`renderkit.pdf`, :mod:`renderkit.screenshot`,
:mod:`renderkit.speech`, :mod:`renderkit.parsing`) builds on these modules, and none imports
another capability's private modules: what two of them need lives here. Users import the
public names from :mod:`renderkit` instead; this package is not a stable API of its own.
"""
