"""Stage 5, fill: found values into the requested shape, with a confidence each.

- :mod:`.concepts`: which known field a schema property means.
- :mod:`.coerce`: a found value coerced to the property's JSON type.
- :mod:`.confidence`: per-field and overall confidence.
"""
