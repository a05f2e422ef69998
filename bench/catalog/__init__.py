"""What the study measures: the interpreters and their modes, the targets and cases, the columns
of a run, and the one list of the ratios that matter (``comparisons``)."""
