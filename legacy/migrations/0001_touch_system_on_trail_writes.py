"""Every write to a trail or a trail activity also updates its trail system's row.

The legacy cache (legacy/versions.py) takes the system row's version as the version of every
legacy document built from the system's rows, so it is one primary-key read per request. These
statement-level triggers make that true for writes by any path (services, admin, bulk updates,
the elevation task): the touched system rows change version in the writing transaction, and the
compile's own update of the row makes the documents follow each compile's commit.
"""

from django.db import migrations

TOUCH_SYSTEMS = """
CREATE FUNCTION legacy_touch_systems() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  -- A no-op update gives the row a new version; `id = id` keeps the lock a no-key one, so
  -- concurrent inserts referencing the system are not blocked.
  IF TG_TABLE_NAME = 'trails_trail' THEN
    IF TG_OP <> 'DELETE' THEN
      UPDATE trails_trailsystem SET id = id
        WHERE id IN (SELECT trail_system_id FROM new_rows);
    END IF;
    IF TG_OP <> 'INSERT' THEN
      UPDATE trails_trailsystem SET id = id
        WHERE id IN (SELECT trail_system_id FROM old_rows);
    END IF;
  ELSE
    IF TG_OP <> 'DELETE' THEN
      UPDATE trails_trailsystem SET id = id WHERE id IN (
        SELECT t.trail_system_id FROM trails_trail t JOIN new_rows a ON a.trail_id = t.id);
    END IF;
    IF TG_OP <> 'INSERT' THEN
      UPDATE trails_trailsystem SET id = id WHERE id IN (
        SELECT t.trail_system_id FROM trails_trail t JOIN old_rows a ON a.trail_id = t.id);
    END IF;
  END IF;
  RETURN NULL;
END $$;
"""
TABLES = ("trails_trail", "trails_trailactivity")
TRANSITIONS = {
    "insert": "NEW TABLE AS new_rows",
    "update": "OLD TABLE AS old_rows NEW TABLE AS new_rows",
    "delete": "OLD TABLE AS old_rows",
}


def _triggers() -> list[str]:
    return [
        f"CREATE TRIGGER legacy_touch_systems_{event} AFTER {event.upper()} ON {table} "
        f"REFERENCING {transitions} FOR EACH STATEMENT EXECUTE FUNCTION legacy_touch_systems()"
        for table in TABLES
        for event, transitions in TRANSITIONS.items()
    ]


def _drop_triggers() -> list[str]:
    return [
        f"DROP TRIGGER IF EXISTS legacy_touch_systems_{event} ON {table}"
        for table in TABLES
        for event in TRANSITIONS
    ]


def create(apps, schema_editor) -> None:
    if schema_editor.connection.vendor != "postgresql":
        return  # elsewhere the legacy views build every answer (legacy/versions.py)
    for statement in (TOUCH_SYSTEMS, *_triggers()):
        schema_editor.execute(statement)


def drop(apps, schema_editor) -> None:
    if schema_editor.connection.vendor != "postgresql":
        return
    for statement in (*_drop_triggers(), "DROP FUNCTION IF EXISTS legacy_touch_systems()"):
        schema_editor.execute(statement)


class Migration(migrations.Migration):
    dependencies = [("trails", "0002_found_trash_proxies")]

    operations = [migrations.RunPython(create, drop)]
