import json

from django.core.management.base import BaseCommand, CommandError

from apikeys.services import set_super_admin
from core.errors import NotFound
from trails.importing import InvalidInput, validate_uid


class Command(BaseCommand):
    help = "Flag an account as superAdmin (Administrator of every trail system), or unflag it."

    def add_arguments(self, parser):
        parser.add_argument("uid", help="Firebase uid; the account is created if missing.")
        parser.add_argument("--off", action="store_true", help="Remove the superAdmin flag.")

    def handle(self, *args, **options):
        try:
            uid = validate_uid(options["uid"])
        except InvalidInput as error:
            raise CommandError(str(error)) from None
        try:
            set_super_admin(uid=uid, super_admin=not options["off"])
        except NotFound as error:
            raise CommandError(str(error)) from None
        self.stdout.write(json.dumps({"uid": uid, "superAdmin": not options["off"]}))
