from trails import osm
from trails.importing import (
    InvalidInput,
    draft_trail_system,
    parse_collection,
    parse_member,
    read_collection,
    write_trail_system,
)
from trails.management.importer import ImportCommand, add_owner_and_members


class Command(ImportCommand):
    help = (
        "Create a trail system with its owner and members, optionally importing trails and "
        'points from a published map file or an export. Prints {"id": "..."}.'
    )

    def add_arguments(self, parser):
        parser.add_argument("--name", required=True, help="Name of the trail system.")
        add_owner_and_members(parser)
        parser.add_argument("--tier", default="", help="Subscription plan key (default free).")
        parser.add_argument(
            "--inactive", action="store_true", help="Hide the system from the public map."
        )
        parser.add_argument(
            "--from-geojson",
            metavar="FILE",
            help="Published-file FeatureCollection (or export_trail_system output) whose "
            "trails and points to import.",
        )
        parser.add_argument(
            "--new-ids",
            action="store_true",
            help="Give the imported trails and points fresh ids (a copy next to the original).",
        )
        self.add_import_options(parser)

    def run_import(self, **options) -> None:
        path = options["from_geojson"]
        parsed = None
        if path:
            collection = read_collection(path)
            if osm.looks_like_osm(collection):
                raise InvalidInput(
                    [f"{path} is an OpenStreetMap export, not a published map file: import it "
                     "with import_osm, which converts pistes, lifts and routes."]
                )  # fmt: skip
            parsed = parse_collection(
                collection,
                options["owner"].strip(),
                skip_invalid=options["skip_invalid"],
                new_ids=options["new_ids"],
                progress=self.progress("Checking"),
            )
        draft = draft_trail_system(
            name=options["name"],
            owner_uid=options["owner"],
            members=[parse_member(spec) for spec in options["member"]],
            tier=options["tier"],
            inactive=options["inactive"],
            parsed=parsed,
        )
        dry_run = options["dry_run"]
        if parsed:
            self.report(parsed.summary("Would import" if dry_run else "Importing"))
        self.finish(None if dry_run else write_trail_system(draft))
