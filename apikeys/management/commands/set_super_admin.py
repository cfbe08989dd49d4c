import json

from django.core.management.base import BaseCommand, CommandError

from apikeys.models import User
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
        if options["off"]:
            if not User.objects.filter(uid=uid).update(is_super_admin=False):
                raise CommandError(f"No account with uid {uid}.")
        else:
            user, _ = User.objects.get_or_create(uid=uid)
            user.is_super_admin = True
            user.save(update_fields=["is_super_admin"])
        self.stdout.write(json.dumps({"uid": uid, "superAdmin": not options["off"]}))
