"""Public routes at the site root: no account (Twilio's inbound-SMS webhook proves itself by
its signature)."""

from django.urls import path

from public import (
    alerts,
    cap_feeds,
    closure_feeds,
    discovery,
    feeds,
    grooming_feeds,
    inbound_sms,
    mtnxml_feeds,
    open511_feeds,
    pwa,
    reports,
    route_checks,
    schema_feeds,
    tracking,
    views,
)

urlpatterns = [
    path("", views.index_view, name="public-index"),
    path("map/<str:system_id>", views.map_view, name="public-map"),
    path("map/<str:system_id>/manifest.webmanifest", pwa.manifest_view, name="public-manifest"),
    path("service-worker.js", pwa.service_worker_view, name="service-worker"),
    path("map/<str:system_id>/events", views.events_view, name="public-events"),
    path("embed/<str:system_id>", views.embed_view, name="public-embed"),
    path("embed/<str:system_id>/list", views.embed_list_view, name="public-embed-list"),
    path("feeds/schema/", schema_feeds.schema_index_view, name="feed-schemas"),
    path("feeds/schema/<str:name>.json", schema_feeds.schema_view, name="feed-schema"),
    path("feeds/<str:system_id>/index.json", discovery.discovery_view, name="feed-index"),
    path("feeds/<str:system_id>.atom", feeds.atom_view, name="feed-atom"),
    path("feeds/<str:system_id>.ics", feeds.calendar_view, name="feed-calendar"),
    path(
        "feeds/<str:system_id>/schedules.json",
        feeds.schedules_json_view,
        name="feed-schedules",
    ),
    path(
        "feeds/<str:system_id>/confirmations.json",
        feeds.confirmations_json_view,
        name="feed-confirmations",
    ),
    path(
        "feeds/<str:system_id>/grooming.json",
        grooming_feeds.grooming_json_view,
        name="feed-grooming",
    ),
    path(
        "feeds/<str:system_id>/groomers.json",
        grooming_feeds.groomers_json_view,
        name="feed-groomers",
    ),
    path(
        "feeds/<str:system_id>/closures.geojson",
        closure_feeds.closures_geojson_view,
        name="feed-closures",
    ),
    path("feeds/<str:system_id>/mtnxml.xml", mtnxml_feeds.mtnxml_view, name="feed-mtnxml"),
    path(
        "feeds/<str:system_id>/open511.json",
        open511_feeds.open511_json_view,
        name="feed-open511-json",
    ),
    path(
        "feeds/<str:system_id>/open511.xml",
        open511_feeds.open511_xml_view,
        name="feed-open511-xml",
    ),
    path(
        "feeds/<str:system_id>/open511/jurisdiction",
        open511_feeds.jurisdiction_view,
        name="feed-open511-jurisdiction",
    ),
    path(
        "feeds/<str:system_id>/open511/jurisdiction/geography",
        open511_feeds.geography_view,
        name="feed-open511-geography",
    ),
    path("feeds/<str:system_id>/cap.atom", cap_feeds.cap_atom_view, name="feed-cap"),
    path(
        "feeds/<str:system_id>/cap/<str:identifier>.xml",
        cap_feeds.cap_message_view,
        name="feed-cap-message",
    ),
    path("route-check/<str:system_id>", route_checks.route_check_view, name="route-check"),
    path("track/osmand", tracking.osmand_view, name="track-osmand"),
    path("track/owntracks", tracking.owntracks_view, name="track-owntracks"),
    path("report/<str:system_id>", reports.report_view, name="public-report"),
    path("subscribe/confirm/<str:token>", views.confirm_email_view, name="subscribe-confirm"),
    path("subscribe/<str:system_id>", views.subscribe_view, name="subscribe"),
    path("subscribe/<str:system_id>/code", views.confirm_code_view, name="subscribe-code"),
    path("unsubscribe/<str:token>", views.unsubscribe_view, name="unsubscribe"),
    path("alerts/vapid-public-key", alerts.vapid_public_key_view, name="alerts-vapid-key"),
    path("alerts/manage/<str:token>", alerts.manage_view, name="alerts-manage"),
    path("alerts/manage/<str:token>/code", alerts.confirm_code_view, name="alerts-confirm-code"),
    path("alerts/confirm/<str:key>", alerts.confirm_email_view, name="alerts-confirm"),
    path("alerts/<str:system_id>", alerts.follow_view, name="alerts-follow"),
    path("sms/inbound", inbound_sms.inbound_sms_view, name="sms-inbound"),
]
