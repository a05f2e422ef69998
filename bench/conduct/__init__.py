"""Conducting a run: the environments, starting a process in a mode, the conductor."""
