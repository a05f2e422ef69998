"""The standard library's tools every interpreter of the study runs: timing, statistics, the
one child-process protocol, the machine's facts, numbers and tables."""
