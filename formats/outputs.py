"""The columns of Batsim 4.2.1's ``PREFIX_jobs.csv`` and ``PREFIX_schedule.csv``, in order.

Source: Batsim ``src/export.cpp``. The embedded engine writes them
(:mod:`adaptsched.engines.embedded.outputs`); the analysis reads them
(:mod:`adaptsched.analysis.jobs`).
"""

JOBS_COLUMNS = (
    "job_id",
    "workload_name",
    "profile",
    "submission_time",
    "requested_number_of_resources",
    "requested_time",
    "success",
    "final_state",
    "starting_time",
    "execution_time",
    "finish_time",
    "waiting_time",
    "turnaround_time",
    "stretch",
    "allocated_resources",
    "consumed_energy",
    "metadata",
)

SCHEDULE_COLUMNS = (
    "batsim_version",
    "consumed_joules",
    "makespan",
    "max_slowdown",
    "max_turnaround_time",
    "max_waiting_time",
    "mean_slowdown",
    "mean_turnaround_time",
    "mean_waiting_time",
    "nb_computing_machines",
    "nb_grouped_switches",
    "nb_jobs",
    "nb_jobs_finished",
    "nb_jobs_killed",
    "nb_jobs_rejected",
    "nb_jobs_success",
    "nb_machine_switches",
    "scheduling_time",
    "simulation_time",
    "success_rate",
    "time_computing",
    "time_idle",
    "time_sleeping",
    "time_switching_off",
    "time_switching_on",
    "time_unavailable",
)

#: The energy metrics of a run, read from the columns above (``consumed_joules``, ``consumed_energy``):
#: :mod:`adaptsched.analysis.energy` computes them; the sweep spec names them without loading pandas.
ENERGY_METRICS = (
    "energy_j",
    "energy_kwh",
    "mean_power_w",
    "jobs_energy_j",
    "job_energy_mean_j",
    "energy_outside_jobs_j",
    "energy_per_node_s_j",
)
