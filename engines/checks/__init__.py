"""What every run is held to, on either engine: before its first event, whether the embedded
engine runs it exactly as real Batsim does (:mod:`.fidelity`) and whether its workload suits the
scheduler and the platform (:mod:`.inputs`); at its end, whether its outputs obey the workload's
physics (:mod:`.physics`) and conserve energy (:mod:`.outputs`)."""
