"""Stage 2, layout: a page's words grouped into rows, segments, blocks and columns.

:mod:`.model` builds the one layout model every extractor reads, whatever the words' origin.
"""
