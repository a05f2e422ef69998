"""The report: tables computed from a run's record, the words under them, the pages, the
figures, and publishing them."""
