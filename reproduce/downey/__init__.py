"""``adaptsched reproduce downey``: Downey, "A parallel workload model and its implications
for processor allocation" (1996), Table 1 and Figures 11 to 13.

:mod:`.plan` (the runs and workloads), :mod:`.findings` (the paper's numbers and claims),
:mod:`.report` (tables and charts), :mod:`.command` (options; runs the plan).
"""
