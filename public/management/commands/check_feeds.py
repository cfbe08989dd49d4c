from django.core.management.base import BaseCommand, CommandError

from public.feed_checks import checked_feeds
from trails.models import TrailSystem

SHOWN_PER_FEED = 50


class Command(BaseCommand):
    help = (
        "Validate every feed of a trail system that has a schema, as it is stored or answered "
        "now: the JSON feeds against /feeds/schema/, the Open511 XML feeds against Open511's "
        "RelaxNG, each CAP message cap.atom lists against CAP 1.2's XSD; print what is wrong, "
        "with its JSON path or line and element path. Exits 1 if any feed is invalid."
    )

    def add_arguments(self, parser):
        parser.add_argument("system_id")

    def handle(self, *args, system_id: str, **options):
        system = TrailSystem.objects.filter(pk=system_id).first()
        if system is None:
            raise CommandError(f"No trail system {system_id}.")
        invalid = 0
        for feed in checked_feeds(system):
            if feed.unchecked:
                self.stdout.write(f"{feed.name} ({feed.where}): {feed.unchecked}")
                continue
            if not feed.problems:
                self.stdout.write(f"{feed.name} ({feed.where}): valid")
                continue
            invalid += 1
            self.stdout.write(f"{feed.name} ({feed.where}): {len(feed.problems)} problem(s)")
            for problem in feed.problems[:SHOWN_PER_FEED]:
                self.stdout.write(f"  {problem.path}: {problem.message}")
            if len(feed.problems) > SHOWN_PER_FEED:
                self.stdout.write(f"  and {len(feed.problems) - SHOWN_PER_FEED} more")
        if invalid:
            raise CommandError(f"{invalid} feed(s) of {system_id} are invalid.")
        self.stdout.write(self.style.SUCCESS(f"Every feed of {system_id} is valid."))
