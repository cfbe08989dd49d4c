from django.core.management.base import BaseCommand

from demo.loader import DEMO_OWNER_UID, load_demo


class Command(BaseCommand):
    help = (
        "Load the demo trail system (Lost Trail Powder Mountain, OpenStreetMap data) once; "
        "a second run changes nothing."
    )

    def add_arguments(self, parser):
        parser.add_argument(
            "--print-id",
            action="store_true",
            help="Print only the demo system's id (loading it first if absent).",
        )

    def handle(self, *args, **options):
        system, loaded = load_demo()
        if options["print_id"]:
            self.stdout.write(system.pk)
        elif loaded:
            self.stdout.write(
                f"Loaded the demo system {system.pk} ({system.trails.count()} trails, "
                f"{system.points.count()} points), owned by {DEMO_OWNER_UID}."
            )
        else:
            self.stdout.write(f"The demo system {system.pk} is already loaded; nothing changed.")
