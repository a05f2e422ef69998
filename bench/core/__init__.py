"""What runs inside every interpreter of the study (standard library only): timing,
statistics, the one child-process protocol and its worker, the machine's facts."""
