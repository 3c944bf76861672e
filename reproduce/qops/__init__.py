"""``adaptsched reproduce qops``: Islam, Balaji, Sabin & Sadayappan, "Analyzing and
Minimizing the Impact of Opportunity Cost in QoS-aware Job Scheduling" (ICPP 2007),
Tables 1 and 2.

:mod:`.plan` (the scenarios and runs), :mod:`.findings` (the paper's numbers and claims),
:mod:`.report` (tables and charts), :mod:`.command` (options; runs the plan).
"""
