"""adaptsched.schedulers"""
