"""Reports received and refused (counted by the web process that answered; summed over
processes under prometheus_client's multiprocess mode), and the reports waiting for triage."""

from prometheus_client import Counter

from core.metrics import DatabaseGauge
from reports.models import Report, State

reports_received = Counter(
    "trails_reports_received",
    "Rider reports kept (a report that joined another of the same problem included).",
)
reports_refused = Counter(
    "trails_reports_refused",
    "Rider reports refused, by reason: invalid (a field, or too far from the system), "
    "photo, too_large, honeypot, client_limit, site_limit or system_paused.",
    ["reason"],
)


def new_reports():
    yield (), Report.objects.filter(state=State.NEW, duplicate_of__isnull=True).count()


DatabaseGauge(
    "trails_reports_waiting",
    "Rider reports (groups of the same problem) not yet resolved or dismissed.",
    [],
    new_reports,
)
