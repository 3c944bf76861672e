"""adaptsched.core"""
