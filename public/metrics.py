"""The live streams' counts, kept by the process that serves them (the stream process, or
runserver in the embedded default): refusals and drops are counted, never logged one by one,
since a flood makes thousands."""

from prometheus_client import Counter

streams_refused = Counter(
    "trails_streams_refused",
    "Live map streams refused at once, by reason: per_client (STREAM_MAX_PER_CLIENT from one "
    "address) or process_full (STREAM_MAX_CONNECTIONS).",
    ["reason"],
)
streams_dropped = Counter(
    "trails_streams_dropped",
    "Live map streams dropped because their client stopped reading for "
    "STREAM_WRITE_TIMEOUT_SECONDS.",
)
