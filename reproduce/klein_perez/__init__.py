"""Klein & Pérez (2010), offline scheduling of rigid, evolving applications: Tables 1 and 2."""
