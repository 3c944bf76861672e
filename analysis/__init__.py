"""adaptsched.analysis"""
