import json

from django.core.exceptions import ValidationError
from django.core.management.base import BaseCommand, CommandError

from trails.models import TrailSystem
from updates.subscribers import add_subscriber


class Command(BaseCommand):
    help = 'Subscribe an email address and/or phone number to a trail system. Prints {"id": ...}.'

    def add_arguments(self, parser):
        parser.add_argument("trail_system_id", metavar="TS_ID", help="Trail system id.")
        parser.add_argument("--email", default="", help="Email address.")
        parser.add_argument("--phone", default="", help="Phone number in E.164, e.g. +14065551234.")

    def handle(self, *args, **options):
        system = TrailSystem.objects.filter(pk=options["trail_system_id"]).first()
        if system is None:
            raise CommandError(f"No trail system with id {options['trail_system_id']}.")
        try:
            subscriber = add_subscriber(
                system=system, email=options["email"], phone=options["phone"]
            )
        except ValidationError as error:
            raise CommandError(" ".join(error.messages)) from None
        self.stdout.write(json.dumps({"id": subscriber.pk}))
