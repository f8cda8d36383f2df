"""Entry point: `tpotbench` opens the window; `tpotbench COMMAND ...` runs headless."""

import sys

from app.cli import main as cli_main


def main() -> int:
    return cli_main(sys.argv[1:])


if __name__ == "__main__":
    sys.exit(main())
