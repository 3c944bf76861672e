"""The ``adaptsched`` command line: one module per group of commands.

Each module has ``register(subparsers)``, which declares its commands, and their handlers
(``cmd_NAME(args) -> exit status``) beside it; the options that several commands share are
declared once in :mod:`.common`. :data:`COMMANDS` lists the modules in the order
``adaptsched --help`` shows their commands: a new command is a module there.

Exit status, the same for every command (docs/errors.md):

* ``0``: success;
* ``1``: error: bad input (the message names file, line and field), a failed run, an output
  that cannot be written, the outputs of a run that did not finish, runs that cannot be
  compared; and "internal error" for a bug (please report it);
* ``2``: usage error: unknown command or option, missing argument, argument value out of
  range or arguments that contradict each other (argparse's convention, which
  :class:`~adaptsched.errors.UsageError` follows);
* ``3``: ``adaptsched check`` only: nothing was checked (every workload refused by the
  scheduler's declared needs, or none to run);
* ``130``: interrupted (Ctrl-C: 128 + SIGINT, as shells report it).

Errors print one paragraph on stderr, ``adaptsched COMMAND: error: ...``, never a
traceback; set ADAPTSCHED_DEBUG=1 to see one.
"""

from __future__ import annotations

import argparse
import os
import shlex
import sys
import textwrap
from collections.abc import Sequence
from types import ModuleType

from adaptsched import __version__
from adaptsched.errors import OUT_OF_MEMORY, AdaptschedError, UsageError, elided, file_problem

from . import analysis, check, demo, inputs, reproduce, run, schedulers, sweep, workloads
from .common import EXIT_ERROR, EXIT_INTERRUPTED, EXIT_OK, EXIT_USAGE
from .usage import Parser

#: The command modules, in the order of ``adaptsched --help``.
COMMANDS: tuple[ModuleType, ...] = (run, check, schedulers, inputs, analysis, workloads, reproduce, sweep, demo)

__all__ = ["COMMANDS", "EXIT_ERROR", "EXIT_INTERRUPTED", "EXIT_OK", "EXIT_USAGE", "build_parser", "main"]


def build_parser(command: str | None = None) -> argparse.ArgumentParser:
    """The whole command line; ``command``, the command about to run (None: any), leaves out
    what only other commands need at start-up: ``reproduce``'s papers, whose runner imports
    Dask (about 0.3 s of CPU), are declared for ``reproduce`` and for help only."""
    parser = Parser(
        prog="adaptsched",
        formatter_class=argparse.RawDescriptionHelpFormatter,
        description="Adaptive batch scheduling on Batsim: run schedulers on workloads, convert traces, "
        "analyse and compare schedules.",
        epilog=textwrap.dedent("""\
            examples:
              adaptsched demo
              adaptsched run --scheduler easy --workload trace.swf.gz --platform 338 --out results/easy --report
              adaptsched compare results/fcfs results/easy --out results/cmp
              adaptsched sweep examples/orders.toml --out results/sweep"""),
    )
    parser.add_argument("--version", action="version", version=f"adaptsched {__version__}")
    sub = parser.add_subparsers(dest="command", metavar="COMMAND")
    sub.required = True
    for module in COMMANDS:
        if module is reproduce:
            reproduce.register(sub, papers=command in (None, "reproduce"))
        else:
            module.register(sub)
    return parser


def _command(argv: Sequence[str]) -> str | None:
    """The command ``argv`` names first (None: an option first, such as ``--help``)."""
    return str(argv[0]) if argv and not str(argv[0]).startswith("-") else None


def main(argv: Sequence[str] | None = None) -> int:
    """Runs one command; returns its exit status (module doc). argparse's own usage errors
    exit 2 from ``parse_args``."""
    parser = build_parser(_command(sys.argv[1:] if argv is None else argv))
    args = parser.parse_args(argv)
    args.command_line = shlex.join(["adaptsched", *(sys.argv[1:] if argv is None else map(str, argv))])
    name = f"adaptsched {args.command}"
    try:
        status: int = args.func(args)
        return status
    except UsageError as error:
        say_error(name, str(error))
        return EXIT_USAGE
    except AdaptschedError as error:
        say_error(name, str(error))
        return EXIT_ERROR
    except KeyboardInterrupt:
        print(f"{name}: interrupted", file=sys.stderr)
        return EXIT_INTERRUPTED
    except BrokenPipeError:  # the reader went away (``adaptsched schedulers | head``): a normal end
        os.dup2(os.open(os.devnull, os.O_WRONLY), sys.stdout.fileno())  # nothing more to flush at exit
        return EXIT_OK
    except OSError as error:  # a file the user named or a full disk: not a bug
        if os.environ.get("ADAPTSCHED_DEBUG"):
            raise
        say_error(name, file_problem(error))
        return EXIT_ERROR
    except MemoryError:  # the work does not fit (the inputs' limits keep their claims from it)
        if os.environ.get("ADAPTSCHED_DEBUG"):
            raise
        say_error(name, OUT_OF_MEMORY)
        return EXIT_ERROR
    except Exception as error:  # a bug: say so in one paragraph, traceback on demand
        if os.environ.get("ADAPTSCHED_DEBUG"):
            raise
        print(
            f"{name}: internal error: {type(error).__name__}: {elided(str(error))} "
            "(set ADAPTSCHED_DEBUG=1 for the traceback, and please report it)",
            file=sys.stderr,
        )
        return EXIT_ERROR


def say_error(name: str, message: str) -> None:
    """``adaptsched COMMAND: error: MESSAGE`` on stderr, a long token of the message elided."""
    print(f"{name}: error: {elided(message)}", file=sys.stderr)
