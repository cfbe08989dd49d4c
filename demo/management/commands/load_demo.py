from io import StringIO

from django.core.management import call_command
from django.core.management.base import BaseCommand

from demo.loader import DEMO_OWNER_EMAIL, DEMO_OWNER_UID, load_demo


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
        parser.add_argument(
            "--welcome",
            metavar="URL",
            help="Then print how to try the service at URL (what `make run` prints): a curl "
            "line with a development ID token of the demo's owner, and a web app sign-in link.",
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
        if options["welcome"]:
            self.stdout.write(welcome(options["welcome"], system.pk))


def _output_of(*command, **options) -> str:
    """Another command's output: one process prints what `make run` shows, instead of one
    Django start-up (about 1.5 s) per line."""
    output = StringIO()
    call_command(*command, stdout=output, **options)
    return output.getvalue().strip()


def welcome(url: str, system_id: str) -> str:
    token = _output_of("dev_token", DEMO_OWNER_UID, email=DEMO_OWNER_EMAIL)
    signin = _output_of("signin_link", DEMO_OWNER_UID)
    return f"""
Trail service on {url}  (management API /api/v1, legacy /legacy, web app /admin)
Try it:
  curl -H "Authorization: Bearer {token}" {url}/api/v1/trail-systems/{system_id}/trails
Web app, signed in as {DEMO_OWNER_UID} (one click, within 15 minutes):
  {signin}"""
