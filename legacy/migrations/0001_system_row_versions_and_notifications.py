"""Every write to a trail activity also updates its trail's row, every write to a trail its
trail system's row, and every committed change of a trail system row notifies the listening
web processes.

The legacy cache (legacy/versions.py) takes the system row's version as the version of every
legacy document built from the system's rows, so it is one primary-key read per request, and
the incremental compile (publishing/service.py) a trail row's version as the version of the
trail with its activities. These statement-level triggers make that true for writes by any path
(services, admin, bulk updates, the elevation task): the touched rows change version in the
writing transaction, and the compile's own update of the system row makes the documents follow
each compile's commit.
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
    -- An activity is part of its trail: the trail row changes version (and, through this
    -- trigger on trails, its system's row), which the incremental compile relies on.
    IF TG_OP <> 'DELETE' THEN
      UPDATE trails_trail SET id = id WHERE id IN (SELECT trail_id FROM new_rows);
    END IF;
    IF TG_OP <> 'INSERT' THEN
      UPDATE trails_trail SET id = id WHERE id IN (SELECT trail_id FROM old_rows);
    END IF;
  END IF;
  RETURN NULL;
END $$;
"""
NOTIFY_CHANGED_SYSTEMS = """
CREATE FUNCTION legacy_notify_systems() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  -- Delivered at commit to every listening web process (legacy/listener.py).
  PERFORM pg_notify('legacy_system_changed', changed.id)
    FROM (SELECT DISTINCT id FROM old_rows) changed;
  RETURN NULL;
END $$;
"""
NOTIFY_EVENTS = ("update", "delete")
TABLES = ("trails_trail", "trails_trailactivity")
TRANSITIONS = {
    "insert": "NEW TABLE AS new_rows",
    "update": "OLD TABLE AS old_rows NEW TABLE AS new_rows",
    "delete": "OLD TABLE AS old_rows",
}


SYSTEMS = "trails_trailsystem"


def _triggers() -> list[str]:
    touch = [
        f"CREATE TRIGGER legacy_touch_systems_{event} AFTER {event.upper()} ON {table} "
        f"REFERENCING {transitions} FOR EACH STATEMENT EXECUTE FUNCTION legacy_touch_systems()"
        for table in TABLES
        for event, transitions in TRANSITIONS.items()
    ]
    notify = [
        f"CREATE TRIGGER legacy_notify_systems_{event} AFTER {event.upper()} ON {SYSTEMS} "
        f"REFERENCING OLD TABLE AS old_rows FOR EACH STATEMENT "
        f"EXECUTE FUNCTION legacy_notify_systems()"
        for event in NOTIFY_EVENTS
    ]
    return touch + notify


def _drop_triggers() -> list[str]:
    touch = [
        f"DROP TRIGGER IF EXISTS legacy_touch_systems_{event} ON {table}"
        for table in TABLES
        for event in TRANSITIONS
    ]
    notify = [
        f"DROP TRIGGER IF EXISTS legacy_notify_systems_{event} ON {SYSTEMS}"
        for event in NOTIFY_EVENTS
    ]
    return touch + notify


def create(apps, schema_editor) -> None:
    if schema_editor.connection.vendor != "postgresql":
        return  # elsewhere the legacy views build every answer (legacy/versions.py)
    for statement in (TOUCH_SYSTEMS, NOTIFY_CHANGED_SYSTEMS, *_triggers()):
        schema_editor.execute(statement)


def drop(apps, schema_editor) -> None:
    if schema_editor.connection.vendor != "postgresql":
        return
    functions = ("legacy_touch_systems", "legacy_notify_systems")
    for statement in (
        *_drop_triggers(),
        *(f"DROP FUNCTION IF EXISTS {function}()" for function in functions),
    ):
        schema_editor.execute(statement)


class Migration(migrations.Migration):
    dependencies = [("trails", "0002_found_trash_proxies")]

    operations = [migrations.RunPython(create, drop)]
