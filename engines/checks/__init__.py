"""What every run is held to, on either engine: before its first event, whether the embedded
engine runs it exactly as real Batsim does (:mod:`.fidelity`); at its end, whether its outputs
obey the workload's physics (:mod:`.physics`)."""
