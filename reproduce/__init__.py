"""Reproductions of the papers' experiments (``adaptsched reproduce NAME``)."""
