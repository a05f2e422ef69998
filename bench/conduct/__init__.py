"""Conducting a run: the environments, starting a process in a mode, the measuring process
(``worker``), the effort, taking a pass, the conductor."""
