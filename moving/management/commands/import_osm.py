import json

from django.core.management.base import CommandError

from trails import osm
from trails.importing import (
    InvalidInput,
    SystemDraft,
    draft_trail_system,
    parse_collection,
    parse_member,
    read_collection,
    write_trail_system,
)
from trails.management.importer import ImportCommand, add_owner_and_members, count

ATTRIBUTION = (
    "Map data © OpenStreetMap contributors, ODbL 1.0, https://www.openstreetmap.org/copyright"
)


class Command(ImportCommand):
    help = (
        "Create a trail system from an OpenStreetMap GeoJSON export (pistes, lifts, nordic, "
        "hiking and mountain-bike ways and route relations); a file that covers several ski "
        "areas needs --ski-area or --each-area. Prints what was kept and skipped, what was "
        'created, then {"id": "..."} (one line per system with --each-area).'
    )

    def add_arguments(self, parser):
        parser.add_argument("file", metavar="FILE", help="OpenStreetMap GeoJSON export.")
        parser.add_argument(
            "--name",
            help="Name of the new trail system (required, except with --each-area, which "
            "names each system after its ski area).",
        )
        add_owner_and_members(parser)
        areas = parser.add_mutually_exclusive_group()
        areas.add_argument(
            "--ski-area",
            metavar="NAME",
            help="Import only this ski area of a file that covers several (any case).",
        )
        areas.add_argument(
            "--each-area",
            action="store_true",
            help="Create one trail system per ski area of the file, named after the area, "
            "each with the given owner and members.",
        )
        self.add_import_options(parser)

    def run_import(self, **options) -> None:
        collection = read_collection(options["file"])
        if not isinstance(collection, dict) or not isinstance(collection.get("features"), list):
            raise InvalidInput(["Not a GeoJSON FeatureCollection with a features list."])
        if options["each_area"]:
            if options["name"]:
                raise CommandError(
                    "--each-area names each trail system after its ski area: leave out --name."
                )
            self.import_each_area(collection, options)
            return
        if not options["name"]:
            raise CommandError("--name is required: the name of the new trail system.")
        ski_area = options["ski_area"]
        if ski_area is not None:
            try:
                ski_area = osm.find_ski_area(collection, ski_area)
            except ValueError as error:
                raise InvalidInput([str(error)]) from None
        elif len(osm.ski_areas(collection)) > 1:
            raise CommandError(several_areas(collection))
        conversion = osm.convert_with_report(
            collection, ski_area=ski_area, progress=self.progress("Converting")
        )
        self.report(conversion.summary())
        draft = self.draft(conversion, options["name"], options, self.progress("Checking"))
        dry_run = options["dry_run"]
        self.report(draft.parsed.summary("Would import" if dry_run else "Importing"))
        self.finish(None if dry_run else write_trail_system(draft))

    def draft(
        self, conversion: osm.Conversion, name: str, options: dict, progress=iter
    ) -> SystemDraft:
        if not conversion.collection["features"]:
            raise InvalidInput(["No trail, piste or lift to import in this file."])
        parsed = parse_collection(
            conversion.collection,
            options["owner"].strip(),
            skip_invalid=options["skip_invalid"],
            # OSM way ids are not ids of this service: every import is a new system.
            new_ids=True,
            progress=progress,
        )
        return draft_trail_system(
            name=name,
            owner_uid=options["owner"],
            members=[parse_member(spec) for spec in options["member"]],
            parsed=parsed,
            description=ATTRIBUTION,
        )

    def import_each_area(self, collection: dict, options: dict) -> None:
        """Every area is converted and checked before any system is written; an area with a
        bad feature stops them all (unless --skip-invalid), named in each problem."""
        areas = osm.split_by_area(collection)
        if not areas:
            raise InvalidInput(["This file names no ski area: import it with --name."])
        drafts, problems, kept, empty = [], [], 0, []
        every = osm.Conversion({"type": "FeatureCollection", "features": []})
        for area, features in self.progress("Checking", unit=" areas", threshold=2)(
            list(areas.items())
        ):
            conversion = osm.convert_with_report(features)
            every.kept.update(conversion.kept)
            every.skipped.update(conversion.skipped)
            if not conversion.collection["features"]:
                empty.append(area)
                continue
            try:
                draft = self.draft(conversion, area, options)
            except InvalidInput as error:
                problems += [f"{area}: {problem}" for problem in error.problems]
                continue
            drafts.append(draft)
            kept += len(draft.parsed.trails)
            problems += [f"{area}: skipped {problem}" for problem in draft.parsed.skipped]
        self.report(every.summary())
        if problems and not options["skip_invalid"]:
            raise InvalidInput(problems)
        for line in problems:
            self.report(f"  {line}")
        if empty:
            names = ", ".join(empty)
            self.report(f"  no trail, piste or lift in {count(len(empty), 'area')}: {names}")
        systems = count(len(drafts), "trail system")
        if options["dry_run"]:
            self.report(f"Would create {systems}, one per ski area: {count(kept, 'trail')}.")
            self.finish(None)
            return
        created = [
            write_trail_system(draft)
            for draft in self.progress("Creating", unit=" systems", threshold=2)(drafts)
        ]
        for system in created:
            self.stdout.write(json.dumps({"id": system.pk, "name": system.name}))
        self.report(
            f"Created {systems}, one per ski area, owned by {options['owner'].strip()}: "
            f"{count(kept, 'trail')}."
        )


def several_areas(collection: dict) -> str:
    """The refusal of a file of several ski areas without --ski-area: the areas, each with
    the number of trails it would have, and the two ways on."""
    areas = osm.split_by_area(collection)
    trails = {
        area: sum(osm.convert_with_report(features).kept.values())
        for area, features in areas.items()
    }
    width = max(len(area) for area in areas)
    listed = "\n".join(
        f"  {area:<{width}}  {count(trails[area], 'trail')}" for area in sorted(areas)
    )
    return (
        f"This file covers {len(areas)} ski areas, and a trail system is one of them. Nothing "
        "was imported. Either:\n"
        "  --ski-area NAME  imports one area (any case), named with --name, or\n"
        "  --each-area      imports every area as a trail system of its own, named after it.\n"
        f"Ski areas and the trails each has:\n{listed}"
    )
