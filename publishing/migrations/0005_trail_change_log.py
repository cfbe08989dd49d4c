"""The trails' change log, for a compile in proportion to the change (issue 32).

Every statement that inserts, updates, deletes or moves trails (an activity's write touches its
trail: trails/migrations/0004) logs, per system, the trails it wrote and its transaction id. A
worker process keeps the snapshot of its last compile of a system; its next compile reads the
trails whose log rows that snapshot could not see (committed since, or still running then),
along the index, instead of every trail's row version. Deletions and moves out of a system are
logged for the system they leave. Rows older than a day are pruned (publishing.tasks); a kept
compile is trusted for an hour (publishing.publisher.KeptCompiles.TRUSTED_SECONDS).

PostgreSQL only: elsewhere rows carry no version and every compile is a full one.
"""

from django.db import migrations

CREATE = (
    """
    CREATE TABLE publishing_trail_change (
      system_id text NOT NULL,
      trail_id text NOT NULL,
      tx xid8 NOT NULL DEFAULT pg_current_xact_id(),
      logged_on timestamptz NOT NULL DEFAULT clock_timestamp()
    )
    """,
    "CREATE INDEX publishing_trail_change_system_tx ON publishing_trail_change (system_id, tx)",
    "CREATE INDEX publishing_trail_change_logged_on ON publishing_trail_change (logged_on)",
    """
    CREATE FUNCTION publishing_log_trail_changes() RETURNS trigger LANGUAGE plpgsql AS $$
    BEGIN
      IF TG_OP <> 'DELETE' THEN
        INSERT INTO publishing_trail_change (system_id, trail_id)
          SELECT trail_system_id, id FROM new_rows;
      END IF;
      -- A deleted trail, or one moved to another system, leaves its old system.
      IF TG_OP = 'DELETE' THEN
        INSERT INTO publishing_trail_change (system_id, trail_id)
          SELECT trail_system_id, id FROM old_rows;
      ELSIF TG_OP = 'UPDATE' THEN
        INSERT INTO publishing_trail_change (system_id, trail_id)
          SELECT o.trail_system_id, o.id FROM old_rows o JOIN new_rows n ON n.id = o.id
          WHERE n.trail_system_id IS DISTINCT FROM o.trail_system_id;
      END IF;
      RETURN NULL;
    END $$
    """,
    *(
        f"CREATE TRIGGER publishing_log_trail_changes_{event} AFTER {event.upper()} "
        f"ON trails_trail REFERENCING {transitions} FOR EACH STATEMENT "
        "EXECUTE FUNCTION publishing_log_trail_changes()"
        for event, transitions in (
            ("insert", "NEW TABLE AS new_rows"),
            ("update", "OLD TABLE AS old_rows NEW TABLE AS new_rows"),
            ("delete", "OLD TABLE AS old_rows"),
        )
    ),
)
DROP = (
    *(
        f"DROP TRIGGER IF EXISTS publishing_log_trail_changes_{event} ON trails_trail"
        for event in ("insert", "update", "delete")
    ),
    "DROP FUNCTION IF EXISTS publishing_log_trail_changes()",
    "DROP TABLE IF EXISTS publishing_trail_change",
)


def create(apps, schema_editor) -> None:
    if schema_editor.connection.vendor == "postgresql":
        for statement in CREATE:
            schema_editor.execute(statement)


def drop(apps, schema_editor) -> None:
    if schema_editor.connection.vendor == "postgresql":
        for statement in DROP:
            schema_editor.execute(statement)


class Migration(migrations.Migration):
    dependencies = [
        ("publishing", "0004_done_compile_requests"),
        ("trails", "0014_status_change_from_reports"),
    ]

    operations = [migrations.RunPython(create, drop)]
