"""Row versions: one query that tells whether a cached legacy body is still current, for a
process that is not listening for change notifications (legacy/listener.py).

PostgreSQL gives every row version a new (ctid, xmin) pair: any INSERT, UPDATE or DELETE by any
path (API, admin, bulk update, elevation task, the compile) changes it, and a trigger
(trails/migrations/0004_row_version_triggers.py) gives a trail a new one when its activities
change. A digest of the pairs of the rows a document is built from changes exactly when the
document may have. Other databases (the embedded SQLite default) have no such columns; there
every request builds the document.
"""

from django.db import connection

from trails.models import Trail, TrailSystem

_SYSTEM = TrailSystem._meta.db_table
_TRAIL = Trail._meta.db_table

SYSTEM_VERSION_SQL = f"SELECT s.ctid::text || s.xmin::text FROM {_SYSTEM} s WHERE s.id = %s"
TRAILS_VERSION_SQL = f"""
SELECT s.ctid::text || s.xmin::text,
  (SELECT md5(string_agg(t.ctid::text || t.xmin::text, ',' ORDER BY t.ctid))
     FROM {_TRAIL} t WHERE t.trail_system_id = s.id)
FROM {_SYSTEM} s WHERE s.id = %s
"""


def _version(sql: str, system_id: str) -> str | None:
    if connection.vendor != "postgresql":
        return None
    with connection.cursor() as cursor:
        cursor.execute(sql, [system_id])
        row = cursor.fetchone()
    if row is None:
        raise TrailSystem.DoesNotExist(f"No trail system {system_id!r}.")
    return "|".join(part or "" for part in row)


def system_version(system_id: str) -> str | None:
    """Changes whenever the trail system row does (GET /ts/:id): one primary-key read."""
    return _version(SYSTEM_VERSION_SQL, system_id)


def trails_version(system_id: str) -> str | None:
    """Changes whenever the system, any of its trails or any of their activities does."""
    return _version(TRAILS_VERSION_SQL, system_id)
