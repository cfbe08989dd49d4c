"""Subscription tiers (plan keys) and what they include."""

# Plans whose systems get hourly weather; the weather collector and GET /weather read this.
WEATHER_TIERS = frozenset({"pro", "premium"})
