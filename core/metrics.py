"""Metrics read from the database when /metrics is scraped (config.metrics serves them):
right whichever process or machine did the work. Each app registers its own gauges."""

from collections.abc import Callable, Iterable

import prometheus_client
from prometheus_client.core import GaugeMetricFamily
from prometheus_client.registry import Collector

# Gauges read from the database at scrape time, registered by the apps that own the rows.
database_registry = prometheus_client.CollectorRegistry(auto_describe=True)


class DatabaseGauge(Collector):
    """A gauge whose samples a query returns as (label values, value) pairs at scrape time."""

    def __init__(
        self,
        name: str,
        documentation: str,
        labels: list[str],
        read: Callable[[], Iterable[tuple[tuple[str, ...], float]]],
    ):
        self.name, self.documentation, self.labels, self.read = name, documentation, labels, read
        database_registry.register(self)

    def describe(self):
        return [GaugeMetricFamily(self.name, self.documentation, labels=self.labels)]

    def collect(self):
        family = GaugeMetricFamily(self.name, self.documentation, labels=self.labels)
        for label_values, value in self.read():
            family.add_metric(list(label_values), value)
        yield family
