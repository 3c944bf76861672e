"""adaptsched.workloads: SWF traces, their conversion to Batsim JSON workloads, bundled trace excerpts."""
