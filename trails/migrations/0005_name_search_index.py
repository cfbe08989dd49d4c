"""A trigram index for the web app's search of half a million trails by name.

Django's `icontains` is `UPPER(name) LIKE UPPER('%term%')`, which no B-tree serves; a GIN
trigram index on the same expression does (pg_trgm, a trusted extension). PostgreSQL only:
elsewhere the search reads the table.
"""

from django.db import migrations

INDEX = "trails_trail_name_trgm"


def create(apps, schema_editor) -> None:
    if schema_editor.connection.vendor != "postgresql":
        return
    schema_editor.execute("CREATE EXTENSION IF NOT EXISTS pg_trgm")
    schema_editor.execute(
        f"CREATE INDEX IF NOT EXISTS {INDEX} ON trails_trail "
        "USING gin (UPPER(name::text) gin_trgm_ops)"
    )
    schema_editor.execute("ANALYZE trails_trail")  # the statistics of the indexed expression


def drop(apps, schema_editor) -> None:
    if schema_editor.connection.vendor == "postgresql":
        schema_editor.execute(f"DROP INDEX IF EXISTS {INDEX}")


class Migration(migrations.Migration):
    dependencies = [("trails", "0004_row_version_triggers")]

    operations = [migrations.RunPython(create, drop)]
