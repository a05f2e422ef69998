"""The pieces of the ``variants-sum`` command line tool (see ``variants.cli``)."""
