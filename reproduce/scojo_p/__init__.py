"""Barsanti & Sodan, Adaptive Job Scheduling via Predictive Job Resource Allocation (SCOJO-P)."""
