from celery import shared_task


@shared_task
def collect_weather() -> None:
    """Hourly weather collection for paid tiers (notifications/weather issue)."""
