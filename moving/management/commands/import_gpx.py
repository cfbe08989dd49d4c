from core.actors import Actor, Via
from moving.gpx import pick_line, read_gpx
from trails.enums import Difficulty, TrailStatus
from trails.importing import InvalidInput
from trails.management.importer import ImportCommand, add_system_argument
from trails.models import Trail, TrailSystem
from trails.services import create_trail

NAME_LIMIT = Trail._meta.get_field("name").max_length


class Command(ImportCommand):
    help = (
        "Add a trail to a trail system from a GPX track or route (several segments become a "
        'MultiLineString). Prints {"id": "..."} of the new trail.'
    )

    def add_arguments(self, parser):
        add_system_argument(parser)
        parser.add_argument("file", metavar="FILE", help="GPX file.")
        parser.add_argument("--name", required=True, help="Name of the new trail.")
        parser.add_argument(
            "--track",
            metavar="NAME|NUMBER",
            help="Which track or route, when the file holds several (number from 1).",
        )
        parser.add_argument(
            "--status",
            choices=TrailStatus.values,
            default=TrailStatus.NONE,
            help="Trail status (default None: derived from activities, which are added in the "
            "web app; a trail without activities publishes as Closed).",
        )
        parser.add_argument("--difficulty", choices=Difficulty.values, default=Difficulty.NOT_RATED)
        self.add_import_options(parser, what="segment")

    def run_import(self, **options) -> None:
        system = TrailSystem.objects.filter(pk=options["system_id"]).first()
        if system is None:
            raise InvalidInput([f"No trail system with id {options['system_id']}."])
        name = options["name"].strip()
        if not name or len(name) > NAME_LIMIT:
            raise InvalidInput([f"The name must be 1 to {NAME_LIMIT} characters."])
        line = pick_line(read_gpx(options["file"]), options["track"])
        if line.problems and (not options["skip_invalid"] or not line.lines):
            raise InvalidInput(line.problems)
        verb = "Would import" if options["dry_run"] else "Importing"
        self.report(f"{verb} {line.label} as {name!r}: {len(line.lines)} segments.")
        for problem in line.problems:
            self.report(f"  skipped {problem}")
        if options["dry_run"]:
            self.finish(None)
            return
        actor = Actor(system.owner.uid if system.owner else "", Via.IMPORT)
        trail = create_trail(
            system=system,
            name=name,
            status=options["status"],
            difficulty=options["difficulty"],
            geometry=line.geometry(),
            actor=actor,
        )
        self.finish(trail)
