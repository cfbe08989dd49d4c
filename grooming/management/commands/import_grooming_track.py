import json
from pathlib import Path

from django.core.management.base import BaseCommand, CommandError

from core.actors import Actor, Via
from core.errors import DomainError
from core.jsdate import InvalidDate, parse_js_date
from grooming.services import DEFAULT_CONDITION, DEFAULT_TOLERANCE_METERS, record_grooming_track
from grooming.tracks import Track, TrackError, parse_upload
from trails.models import TrailSystem

# The services' name of a field a refusal is about -> the option that sets it.
OPTION_OF = {
    "tolerance_meters": "--tolerance",
    "condition": "--condition",
    "groomed_at": "--groomed-at",
}


def read_track(path: Path) -> Track:
    return parse_upload(path.read_bytes())


class Command(BaseCommand):
    help = (
        "Post a grooming track (GPX, or GeoJSON lines) to a trail system, as "
        "POST /api/v1/trail-systems/:id/grooming-tracks does; prints the same JSON."
    )

    def add_arguments(self, parser):
        parser.add_argument("trail_system_id", metavar="TS_ID")
        parser.add_argument("file", metavar="FILE", type=Path, help="GPX or GeoJSON file.")
        parser.add_argument(
            "--tolerance",
            type=float,
            default=DEFAULT_TOLERANCE_METERS,
            metavar="M",
            help="Metres either side of the track that count as groomed, 5 to 50 (default 15).",
        )
        parser.add_argument(
            "--condition",
            default=DEFAULT_CONDITION,
            metavar="C",
            help="Surface-conditions value to post (default groomed).",
        )
        parser.add_argument(
            "--groomed-at",
            metavar="DATE",
            help="When it was groomed (default: the track's last time, else now).",
        )
        parser.add_argument(
            "--uid", help="Account the pass is recorded for (default: the system's owner)."
        )
        parser.add_argument(
            "--dry-run", action="store_true", help="Measure the coverage, write nothing."
        )

    def handle(self, *args, **options):
        system = TrailSystem.objects.filter(pk=options["trail_system_id"]).first()
        if system is None:
            raise CommandError(f"No trail system {options['trail_system_id']!r}.")
        try:
            groomed_at = options["groomed_at"] and parse_js_date(options["groomed_at"])
            result = record_grooming_track(
                system=system,
                track=read_track(options["file"]),
                actor=Actor(options["uid"] or system.owner_id or "", Via.IMPORT),
                tolerance_meters=options["tolerance"],
                condition=options["condition"],
                groomed_at=groomed_at or None,
                dry_run=options["dry_run"],
            )
        except OSError as error:
            raise CommandError(f"Cannot read {options['file']}: {error.strerror}.") from None
        except InvalidDate:
            raise CommandError("--groomed-at: not a date JavaScript's Date can read.") from None
        except DomainError as error:
            option = OPTION_OF.get(error.field)
            raise CommandError(f"{option}: {error.message}" if option else str(error)) from None
        except TrackError as error:
            raise CommandError(str(error)) from None
        self.stdout.write(json.dumps(result.document()))
