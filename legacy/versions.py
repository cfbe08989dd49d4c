"""Row versions: one cheap query that tells whether a cached legacy body is still current.

PostgreSQL gives every row version a new (ctid, xmin) pair: any UPDATE of the trail system row
changes it. The compile updates that row in its transaction, and triggers
(legacy/migrations/0001_system_row_versions_and_notifications.py) update it on every write to the
system's trails or their activities, by any path. So the system row's pair is the version of
every legacy document built from the system's rows: one primary-key read, in the database that
every web process and machine shares, current the moment the write or the compile commits (a
Redis stamp would need a database fallback anyway, and could not be set inside the writing
transaction). A listening process (legacy/listener.py) reads it only when a notification says
the row changed. Other databases (the embedded SQLite default) have no such columns; there every
request builds the document.
"""

from django.db import connection

from trails.models import TrailSystem

SYSTEM_VERSION_SQL = (
    f"SELECT ctid::text || xmin::text FROM {TrailSystem._meta.db_table} WHERE id = %s"
)


def system_version(system_id: str) -> str | None:
    """Changes whenever the trail system row, any of its trails or their activities does."""
    if connection.vendor != "postgresql":
        return None
    with connection.cursor() as cursor:
        cursor.execute(SYSTEM_VERSION_SQL, [system_id])
        row = cursor.fetchone()
    if row is None:
        raise TrailSystem.DoesNotExist(f"No trail system {system_id!r}.")
    return row[0]
