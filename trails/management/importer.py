"""What every import command shares: --dry-run and --skip-invalid, a progress bar on large
inputs, the report on stderr and the `{"id": ...}` line on stdout, last, so scripts can read
it with `$(...)` while a person reads the report."""

import json
from collections.abc import Callable, Iterable

from django.core.management.base import BaseCommand, CommandError
from tqdm import tqdm

from trails.importing import InvalidInput
from trails.models import Trail, TrailSystem

# Below this many features an import is quick and a progress bar would only flicker.
PROGRESS_THRESHOLD = 500


class ImportCommand(BaseCommand):
    def add_import_options(self, parser, *, what: str = "feature") -> None:
        parser.add_argument(
            "--dry-run",
            action="store_true",
            help="Read and check everything, print the report, write nothing.",
        )
        parser.add_argument(
            "--skip-invalid",
            action="store_true",
            help=f"When a {what} is invalid, import the rest and list the invalid ones "
            "(by default nothing is imported).",
        )

    def handle(self, *args, **options):
        try:
            self.run_import(**options)
        except InvalidInput as error:
            count = len(error.problems)
            header = (
                f"Nothing was imported: {count} problem{'s' if count != 1 else ''} "
                "(--skip-invalid imports the rest)."
                if any(not isinstance(p, str) for p in error.problems)
                else "Nothing was imported."
            )
            raise CommandError(f"{header}\n{error}") from None

    def run_import(self, **options) -> None:
        raise NotImplementedError

    def progress(
        self, description: str, *, unit: str = " features", threshold: int = PROGRESS_THRESHOLD
    ) -> Callable[[Iterable], Iterable]:
        """Wraps a sized iterable in a progress bar on stderr when it is large and stderr is a
        terminal (redrawn in place, then erased); piped to a file or a log it would be a
        stream of carriage returns, so there it is left out."""
        terminal = self.stderr.isatty()

        def wrap(items):
            return tqdm(
                items,
                desc=description,
                unit=unit,
                disable=not terminal or len(items) < threshold,
                # The stream itself: Django's wrapper would end every redraw with a newline.
                file=self.stderr._out,
                leave=False,
            )

        return wrap

    def report(self, text: str) -> None:
        self.stderr.write(text)

    def finish(self, created: TrailSystem | Trail | None) -> None:
        """The last lines: what was done, for a person, then the id of what was created on
        stdout for a script; or a note that a dry run wrote nothing."""
        if created is None:
            self.report("Dry run: nothing was written.")
            return
        self.report(done(created))
        self.stdout.write(json.dumps({"id": created.pk}))


def done(created: TrailSystem | Trail) -> str:
    """One line that says what an import created."""
    if isinstance(created, Trail):
        return f"Added the trail {created.name!r} ({created.pk}) to {created.trail_system.name!r}."
    owner = f", owned by {created.owner_id}" if created.owner_id else ", without an owner"
    return (
        f"Created the trail system {created.name!r} ({created.pk}){owner}: "
        f"{count(created.trails.count(), 'trail')} and {count(created.points.count(), 'point')}."
    )


def count(number: int, noun: str) -> str:
    return f"{number:,} {noun}{'' if number == 1 else 's'}"


def add_owner_and_members(parser) -> None:
    parser.add_argument("--owner", required=True, metavar="UID", help="Firebase uid of the owner.")
    parser.add_argument(
        "--member",
        action="append",
        default=[],
        metavar="UID=ROLE",
        help="A member and role (Administrator, Trustee or another name); repeatable.",
    )


def add_system_argument(parser) -> None:
    parser.add_argument("system_id", metavar="TS_ID", help="Id of the trail system.")
