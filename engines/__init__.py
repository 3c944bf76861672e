"""adaptsched.engines"""
