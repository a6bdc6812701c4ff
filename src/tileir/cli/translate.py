"""cuda-tile-translate: placeholder until the bytecode issue lands."""
import sys


def main(argv=None) -> int:
    print("cuda-tile-translate: bytecode translation is not implemented yet", file=sys.stderr)
    return 1
