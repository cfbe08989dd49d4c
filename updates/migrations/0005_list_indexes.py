"""The web app's list of a million subscribers: read in creation order (a B-tree), searched by
email address or phone number (`icontains`, served by GIN trigram indexes on the same
`UPPER(...)` expressions; pg_trgm, a trusted extension; PostgreSQL only). Deliveries lose
the index of their update column, which their unique (update, subscriber, channel) index
already serves: one index fewer to write at every state change of a fan-out. Notify updates
get a partial index by creation time for the notification sweep."""

import django.db.models.deletion
from django.db import migrations, models

SEARCHED = ("email", "phone")


def create(apps, schema_editor) -> None:
    if schema_editor.connection.vendor != "postgresql":
        return
    schema_editor.execute("CREATE EXTENSION IF NOT EXISTS pg_trgm")
    for column in SEARCHED:
        schema_editor.execute(
            f"CREATE INDEX IF NOT EXISTS updates_subscriber_{column}_trgm ON updates_subscriber "
            f"USING gin (UPPER({column}::text) gin_trgm_ops)"
        )
    schema_editor.execute("ANALYZE updates_subscriber")  # the indexed expressions' statistics


def drop(apps, schema_editor) -> None:
    if schema_editor.connection.vendor == "postgresql":
        for column in SEARCHED:
            schema_editor.execute(f"DROP INDEX IF EXISTS updates_subscriber_{column}_trgm")


class Migration(migrations.Migration):
    dependencies = [
        ("trails", "0004_row_version_triggers"),
        ("updates", "0004_delivery_claimed_on"),
    ]

    operations = [
        migrations.AddIndex(
            model_name="subscriber",
            index=models.Index(fields=["created_on"], name="subscriber_created_on"),
        ),
        migrations.AddIndex(
            model_name="update",
            index=models.Index(
                condition=models.Q(("notify", True)),
                fields=["created_on"],
                name="update_notify",
            ),
        ),
        migrations.RunPython(create, drop),
        migrations.AlterField(
            model_name="delivery",
            name="update",
            field=models.ForeignKey(
                db_index=False,
                on_delete=django.db.models.deletion.CASCADE,
                related_name="deliveries",
                to="updates.update",
            ),
        ),
    ]
