"""The embedded engine: Batsim 4.2.1 re-implemented in Python on a SimGrid-like kernel."""
