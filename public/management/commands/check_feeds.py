import orjson
from django.core.management.base import BaseCommand, CommandError

from public.discovery import discovery_document
from public.feed_schemas import problems
from public.selectors import StoredFeed, stored_feeds
from trails.models import TrailSystem

SHOWN_PER_FEED = 50


class Command(BaseCommand):
    help = (
        "Validate every feed of a trail system that has a schema (/feeds/schema/) as it is "
        "stored (or, for the discovery file, answered) now; print what is wrong, with its "
        "JSON path. Exits 1 if any feed is invalid."
    )

    def add_arguments(self, parser):
        parser.add_argument("system_id")

    def handle(self, *args, system_id: str, **options):
        system = TrailSystem.objects.filter(pk=system_id).first()
        if system is None:
            raise CommandError(f"No trail system {system_id}.")
        invalid = 0
        discovery = StoredFeed(
            "discovery", f"/feeds/{system.pk}/index.json", orjson.dumps(discovery_document(system))
        )
        for feed in [*stored_feeds(system), discovery]:
            if feed.body is None:
                self.stdout.write(f"{feed.schema} ({feed.where}): not published yet")
                continue
            try:
                document = orjson.loads(feed.body)
            except orjson.JSONDecodeError as error:
                found = [f"$: not JSON ({error})"]
            else:
                found = [f"{p.path}: {p.message}" for p in problems(feed.schema, document)]
            if not found:
                self.stdout.write(f"{feed.schema} ({feed.where}): valid")
                continue
            invalid += 1
            self.stdout.write(f"{feed.schema} ({feed.where}): {len(found)} problem(s)")
            for line in found[:SHOWN_PER_FEED]:
                self.stdout.write(f"  {line}")
            if len(found) > SHOWN_PER_FEED:
                self.stdout.write(f"  and {len(found) - SHOWN_PER_FEED} more")
        if invalid:
            raise CommandError(f"{invalid} feed(s) of {system_id} are invalid.")
        self.stdout.write(self.style.SUCCESS(f"Every feed of {system_id} is valid."))
