import json

from django.core.management.base import BaseCommand, CommandError

from trails.importing import InvalidInput, create_trail_system, parse_member, read_collection


class Command(BaseCommand):
    help = (
        "Create a trail system with its owner and members, optionally importing trails and "
        'points from a published map file. Prints {"id": "..."}.'
    )

    def add_arguments(self, parser):
        parser.add_argument("--name", required=True, help="Name of the trail system.")
        parser.add_argument(
            "--owner", required=True, metavar="UID", help="Firebase uid of the owner."
        )
        parser.add_argument(
            "--member",
            action="append",
            default=[],
            metavar="UID=ROLE",
            help="A member and role (Administrator, Trustee or another name); repeatable.",
        )
        parser.add_argument("--tier", default="", help="Subscription plan key (default free).")
        parser.add_argument(
            "--inactive", action="store_true", help="Hide the system from the public map."
        )
        parser.add_argument(
            "--from-geojson",
            metavar="FILE",
            help="Published-file FeatureCollection whose trails and points to import.",
        )

    def handle(self, *args, **options):
        try:
            members = [parse_member(spec) for spec in options["member"]]
            path = options["from_geojson"]
            system = create_trail_system(
                name=options["name"],
                owner_uid=options["owner"],
                members=members,
                tier=options["tier"],
                inactive=options["inactive"],
                collection=read_collection(path) if path else None,
            )
        except InvalidInput as error:
            raise CommandError(str(error)) from None
        self.stdout.write(json.dumps({"id": system.pk}))
