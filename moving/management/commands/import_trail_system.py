from django.core.management.base import CommandError

from moving.legacy_source import (
    DEFAULT_TIMEOUT,
    LegacyClient,
    SourceError,
    draft_import,
    read_snapshot,
    write_import,
)
from trails.importing import validate_uid
from trails.management.importer import ImportCommand


class Command(ImportCommand):
    help = (
        "Copy a trail system from a running deployment's legacy read interface (this "
        "service's /legacy, or the service it replaces): the system, every trail, the points "
        "and the active updates, keeping their ids. Everything is read before anything is "
        'written. Prints {"id": "..."}.'
    )

    def add_arguments(self, parser):
        parser.add_argument(
            "--from-legacy",
            required=True,
            metavar="BASE_URL",
            help="Base of the legacy interface, e.g. https://trails.example.com/legacy.",
        )
        parser.add_argument("system_id", metavar="TS_ID", help="Id of the system to copy.")
        parser.add_argument(
            "--owner",
            metavar="UID",
            help="Firebase uid of the owner here (the legacy interface does not show owners; "
            "without it only super admins manage the copy until members are added).",
        )
        parser.add_argument(
            "--timeout",
            type=float,
            default=DEFAULT_TIMEOUT,
            metavar="SECONDS",
            help=f"Time allowed for each request (default {DEFAULT_TIMEOUT:g}).",
        )
        self.add_import_options(parser, what="trail, point or update")

    def run_import(self, **options) -> None:
        owner = options["owner"]
        if owner is not None:
            owner = validate_uid(owner)
        client = LegacyClient(options["from_legacy"], timeout=options["timeout"])
        try:
            snapshot = read_snapshot(client, options["system_id"])
        except SourceError as error:
            raise CommandError(f"Nothing was imported. {error}") from None
        plan = draft_import(snapshot, owner, skip_invalid=options["skip_invalid"])
        dry_run = options["dry_run"]
        self.report(plan.summary("Would import" if dry_run else "Importing"))
        self.finish(None if dry_run else write_import(plan))
