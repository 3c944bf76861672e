"""adaptsched.platforms"""
