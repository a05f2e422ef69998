"""Build-time helpers for setup.py: which extensions this interpreter gets, and how."""
