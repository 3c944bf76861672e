"""adaptsched.workloads"""
