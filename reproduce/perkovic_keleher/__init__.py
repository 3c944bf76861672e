"""``adaptsched reproduce perkovic-keleher``: the comparisons of Perković & Keleher,
"Randomization, Speculation, and Adaptation in Batch Schedulers" (SC 2000), on CTC-SP2.

:mod:`.plan` (the mixes and runs), :mod:`.findings` (the paper's numbers and claims),
:mod:`.report` (tables and charts), :mod:`.command` (options; runs the plan).
"""
