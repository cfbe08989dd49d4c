import json

from django.core.management.base import BaseCommand, CommandError

from moving.exporting import export_collection
from trails.management.importer import add_system_argument
from trails.models import TrailSystem


class Command(BaseCommand):
    help = (
        "Write a trail system's trails (with activities) and points (with description and "
        "web-cam URL) as GeoJSON in the format create_trail_system --from-geojson imports."
    )

    def add_arguments(self, parser):
        add_system_argument(parser)
        parser.add_argument(
            "--output", metavar="FILE", help="Write to FILE instead of standard output."
        )

    def handle(self, *args, **options):
        system = TrailSystem.objects.filter(pk=options["system_id"]).first()
        if system is None:
            raise CommandError(f"No trail system with id {options['system_id']}.")
        text = json.dumps(export_collection(system), ensure_ascii=False)
        path = options["output"]
        if not path:
            self.stdout.write(text)
            return
        try:
            with open(path, "w", encoding="utf-8") as handle:
                handle.write(text)
        except OSError as error:
            raise CommandError(f"Cannot write {path}: {error.strerror or error}.") from None
        self.stderr.write(
            f"Exported {system.trails.count()} trails and {system.points.count()} points of "
            f"{system.name} to {path}."
        )
