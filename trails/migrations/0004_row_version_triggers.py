"""Row versions and change notifications for the trails tables, written by any path.

- A write to a trail activity also updates its trail's row (a no-op update): the trail's
  PostgreSQL row version (`ctid`, `xmin`) then covers the trail and its activities, which the
  incremental compile (publishing/publisher.py) and the legacy cache (legacy/versions.py) use.
- Every committed write to a trail or to a trail system row sends a notification with the
  system's id on `legacy_system_changed`, which the listening web processes use to drop their
  cached legacy bodies (legacy/listener.py). A notification takes no lock, so writes to a
  system's trails never wait on each other or on its compile here.

Statement-level triggers with transition tables: one statement (a bulk update, a COPY) fires
each once.
"""

from django.db import migrations

TOUCH_TRAILS = """
CREATE FUNCTION trails_touch_trails() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  -- `id = id` keeps the row lock a no-key one: rows referencing the trail are not blocked.
  IF TG_OP <> 'DELETE' THEN
    UPDATE trails_trail SET id = id WHERE id IN (SELECT trail_id FROM new_rows);
  END IF;
  IF TG_OP <> 'INSERT' THEN
    UPDATE trails_trail SET id = id WHERE id IN (SELECT trail_id FROM old_rows);
  END IF;
  RETURN NULL;
END $$;
"""
NOTIFY_SYSTEMS = """
CREATE FUNCTION trails_notify_systems() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  -- Delivered at commit, once per system and transaction, to every listening session.
  IF TG_TABLE_NAME = 'trails_trail' THEN
    IF TG_OP <> 'DELETE' THEN
      PERFORM pg_notify('legacy_system_changed', changed.system_id)
        FROM (SELECT DISTINCT trail_system_id AS system_id FROM new_rows) changed;
    END IF;
    IF TG_OP <> 'INSERT' THEN
      PERFORM pg_notify('legacy_system_changed', changed.system_id)
        FROM (SELECT DISTINCT trail_system_id AS system_id FROM old_rows) changed;
    END IF;
  ELSE
    PERFORM pg_notify('legacy_system_changed', changed.id)
      FROM (SELECT DISTINCT id FROM old_rows) changed;
  END IF;
  RETURN NULL;
END $$;
"""
TRANSITIONS = {
    "insert": "NEW TABLE AS new_rows",
    "update": "OLD TABLE AS old_rows NEW TABLE AS new_rows",
    "delete": "OLD TABLE AS old_rows",
}
# (table, function, events)
TRIGGERS = (
    ("trails_trailactivity", "trails_touch_trails", ("insert", "update", "delete")),
    ("trails_trail", "trails_notify_systems", ("insert", "update", "delete")),
    ("trails_trailsystem", "trails_notify_systems", ("update", "delete")),
)


def _create_triggers() -> list[str]:
    return [
        f"CREATE TRIGGER {function}_{event} AFTER {event.upper()} ON {table} "
        f"REFERENCING {TRANSITIONS[event]} FOR EACH STATEMENT EXECUTE FUNCTION {function}()"
        for table, function, events in TRIGGERS
        for event in events
    ]


def _drop_triggers() -> list[str]:
    return [
        f"DROP TRIGGER IF EXISTS {function}_{event} ON {table}"
        for table, function, events in TRIGGERS
        for event in events
    ]


def create(apps, schema_editor) -> None:
    if schema_editor.connection.vendor != "postgresql":
        return  # elsewhere rows carry no version: every compile and legacy answer is a full one
    for statement in (TOUCH_TRAILS, NOTIFY_SYSTEMS, *_create_triggers()):
        schema_editor.execute(statement)


def drop(apps, schema_editor) -> None:
    if schema_editor.connection.vendor != "postgresql":
        return
    functions = ("trails_touch_trails", "trails_notify_systems")
    for statement in (
        *_drop_triggers(),
        *(f"DROP FUNCTION IF EXISTS {function}()" for function in functions),
    ):
        schema_editor.execute(statement)


class Migration(migrations.Migration):
    dependencies = [("trails", "0003_status_history")]

    operations = [migrations.RunPython(create, drop)]
