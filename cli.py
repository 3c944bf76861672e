"""adaptsched command line (placeholder while the foundation lands)."""


def main(argv=None):
    print("adaptsched")
    return 0
