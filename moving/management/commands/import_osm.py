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

ATTRIBUTION = (
    "Map data © OpenStreetMap contributors, ODbL 1.0, https://www.openstreetmap.org/copyright"
)


class Command(ImportCommand):
    help = (
        "Create a trail system from an OpenStreetMap GeoJSON export (pistes, lifts, nordic, "
        "hiking and mountain-bike ways and route relations). Prints what was kept and skipped, "
        'then {"id": "..."}.'
    )

    def add_arguments(self, parser):
        parser.add_argument("file", metavar="FILE", help="OpenStreetMap GeoJSON export.")
        parser.add_argument("--name", required=True, help="Name of the new trail system.")
        add_owner_and_members(parser)
        parser.add_argument(
            "--ski-area",
            metavar="NAME",
            help="Import only this ski area of a file that covers several (any case).",
        )
        self.add_import_options(parser)

    def run_import(self, **options) -> None:
        collection = read_collection(options["file"])
        if not isinstance(collection, dict) or not isinstance(collection.get("features"), list):
            raise InvalidInput(["Not a GeoJSON FeatureCollection with a features list."])
        ski_area = options["ski_area"]
        if ski_area is not None:
            try:
                ski_area = osm.find_ski_area(collection, ski_area)
            except ValueError as error:
                raise InvalidInput([str(error)]) from None
        conversion = osm.convert_with_report(
            collection, ski_area=ski_area, progress=self.progress("Converting")
        )
        self.report(conversion.summary())
        if not conversion.collection["features"]:
            raise InvalidInput(["No trail, piste or lift to import in this file."])
        parsed = parse_collection(
            conversion.collection,
            options["owner"].strip(),
            skip_invalid=options["skip_invalid"],
            # OSM way ids are not ids of this service: every import is a new system.
            new_ids=True,
            progress=self.progress("Checking"),
        )
        draft = draft_trail_system(
            name=options["name"],
            owner_uid=options["owner"],
            members=[parse_member(spec) for spec in options["member"]],
            parsed=parsed,
            description=ATTRIBUTION,
        )
        dry_run = options["dry_run"]
        self.report(parsed.summary("Would import" if dry_run else "Importing"))
        self.finish(None if dry_run else write_trail_system(draft).pk)
