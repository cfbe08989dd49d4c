"""Words of the public pages in the two languages a trail system may have (en, fr).

The pages and the map script read the same table, so a word is translated in one place.
"""

from datetime import datetime

TEXTS: dict[str, dict[str, str]] = {
    "en": {
        "site_title": "Trail status",
        "index_heading": "Trail systems",
        "index_intro": "Live trail status, updated by the people who run each area.",
        "index_empty": "No trail system is published yet.",
        "open_of_total": "{open} of {total} trails open",
        "map_of": "Trail map of {name}",
        "open": "Open",
        "caution": "Caution",
        "closed": "Closed",
        "lift": "Lift",
        "lifts": "Lifts",
        "dashed": "Summer or unofficial trail",
        "one_way": "One way",
        "legend": "Legend",
        "skip_to_list": "Skip to the trail list",
        "trails": "Trails",
        "activity": "Activity",
        "status": "Status",
        "all_activities": "All activities",
        "notices": "Notices",
        "label_colon": "{label}: ",
        "info": "Information",
        "warning": "Warning",
        "danger": "Danger",
        "snow_report": "Snow report",
        "baseDepth": "Base",
        "twentyFourHours": "Last 24 h",
        "fourtyEightHours": "Last 48 h",
        "sevenDays": "Last 7 days",
        "seasonTotal": "Season total",
        "lastSnowAmount": "Last snowfall",
        "upperElevationDepth": "Upper mountain",
        "lastSnowDate": "Last snow",
        "weather": "Weather",
        "feels_like": "feels like",
        "wind": "wind",
        "conditions": "Conditions",
        "ago_minutes": "{n} min ago",
        "ago_hours": "{n} h ago",
        "ago_days": "{n} d ago",
        "unconfirmed_since": "Unconfirmed: last confirmed {ago}",
        "never_confirmed": "Unconfirmed: never confirmed",
        "every_activity_closed": "Every activity closed",
        # Where a trail lies among trails of the same name (map.js `partAmong`).
        "part_n": "north part",
        "part_ne": "north-east part",
        "part_e": "east part",
        "part_se": "south-east part",
        "part_s": "south part",
        "part_sw": "south-west part",
        "part_w": "west part",
        "part_nw": "north-west part",
        "just_now": "just now",
        "updated": "Updated {time}",
        "live_updated": "Live · updated {time}",
        "reconnecting_updated": "Reconnecting… · updated {time}",
        "change_line": "{name}: {status}",
        "change_gone": "{name}: no longer shown",
        "more_changes": "and {n} more changes",
        "loading": "Loading the trail map…",
        "load_failed": "The map could not be loaded. It will try again shortly.",
        "no_trails": "No trail matches this activity.",
        "wait_time": "Wait {n} min",
        "more": "More information",
        "full_map": "Open the full map",
        # Feeds and scheduled changes (issue 23)
        "feed_title": "{name}: trail status and updates",
        "feed_subtitle": "Notices, conditions, snow reports, grooming and trail status changes.",
        "calendar_title": "{name}: scheduled closures",
        "follows_activities": "Status of its activities",
        "all_trails": "All trails",
        "conditions_on": "Conditions on {trails}: {conditions}",
        "groomed": "Groomed: {trails}",
        "until": "Until {time}",
        "was": "Was: {status}",
        "scheduled_change": "Scheduled change",
        "until_further_notice": "Until further notice.",
        "scheduled_heading": "Scheduled changes",
        "schedule_until": "{status} until {end}",
        "schedule_window": "{status} {start} \u2013 {end}",
        "schedule_from": "{status} from {start}",
        "schedule_every_day": "every day",
        "atom_feed": "Atom feed",
        "closures_calendar": "Calendar of closures",
        "noscript": "The map needs JavaScript. Trail status list:",
        "difficulty_circle": "Easiest",
        "difficulty_square": "More difficult",
        "difficulty_diamond": "Most difficult",
        "difficulty_doubleDiamond": "Experts only",
        "difficulty_terrainPark": "Terrain park",
        "subscribe_heading": "Get alerts",
        "subscribe_intro": "Notices and conditions by e-mail or text message. "
        "We send a confirmation first; nothing is sent until you confirm.",
        "email": "E-mail",
        "phone": "Mobile phone (with country code, e.g. +1 406 555 0123)",
        "subscribe": "Subscribe",
        "check_heading": "Check your messages",
        "check_email": "If {email} can receive e-mail, a confirmation link is on its way. "
        "Open it within 24 hours.",
        "check_phone": "If {phone} can receive text messages, a 6-digit code is on its way. "
        "Enter it here within 30 minutes.",
        "code": "Code",
        "confirm": "Confirm",
        "wrong_code": "That code is not right. Check the text message and try again.",
        "confirmed_heading": "You are subscribed",
        "confirmed": "{contact} will get updates from {name}. "
        "Every message has a link to unsubscribe.",
        "expired_heading": "This confirmation has expired",
        "expired": "The link or code is no longer valid (it was used, is too old, "
        "or had too many tries). Subscribe again from the map.",
        "too_many_heading": "Too many requests",
        "too_many": "Please wait a while before you try again.",
        "invalid_heading": "Check the form",
        # Refused sign-ups (issue 26): each names what to do instead.
        "email_invalid": "{email} is not a valid e-mail address.",
        "email_not_public": "We cannot write to {email}: give a mailbox on a public domain, "
        "such as name@example.com.",
        "email_too_long": "The part of {email} before the @ is too long: mail servers take "
        "at most 64 characters.",
        "phone_invalid": "{phone} is not a phone number we recognise. Give it with its "
        "country code, e.g. +1 406 555 0123.",
        "phone_not_mobile": "{phone} cannot get our text messages: only mobile numbers can "
        "(not premium-rate, shared-cost, personal, pager, voicemail or satellite numbers). "
        "You can sign up by e-mail instead.",
        "phone_abroad": "Sign-up by text message is open to mobile numbers of {countries} "
        "only, and {phone} is not one. You can sign up by e-mail instead.",
        "sms_off": "Sign-up by text message is not offered here. You can sign up by e-mail.",
        "sms_paused_heading": "Sign-up by text is paused",
        "sms_paused": "Sign-up by text message is paused for today. You can sign up by "
        "e-mail now, or by text again tomorrow.",
        "sms_paused_no_code": "Sign-up by text message is paused for today, so no code was "
        "sent to {phone}. Sign up by text again tomorrow.",
        "back_to_map": "Back to the map",
        # The pages of the links in our e-mails: a button acts, opening the link does not.
        "confirm_link_heading": "Confirm your subscription",
        "confirm_link": "Press the button to get updates from {name} at {email}.",
        "confirm_link_button": "Confirm my subscription",
        "unsubscribe_ask_heading": "Unsubscribe?",
        "unsubscribe_ask": "{address} gets updates from {name}. Press the button to stop them.",
        "unsubscribe_button": "Unsubscribe",
        "unsubscribed_heading": "You are unsubscribed",
        "unsubscribed": "We will not send {address} any more updates from {name}. "
        "To get them again, subscribe from the map.",
        "unknown_link_heading": "Link not recognised",
        "unknown_link": "This unsubscribe link is not valid. Use the link in the latest "
        "message you got from us, or reply STOP to a text message.",
        "not_found_heading": "Trail system not found",
        "not_found": "There is no public trail map at this address.",
        "see_all": "See all trail systems",
        "page_not_found_heading": "Page not found",
        "page_not_found": "There is no page at this address.",
        "server_error_heading": "Something went wrong",
        "server_error": "This page could not be shown because of an error on our side. "
        "Please try again in a moment.",
        "embed_heading": "Embed this map",
        "embed_map": "Map",
        "embed_list": "Status list",
        # The map's Grooming view (issue 34).
        "view_status": "Status",
        "view_grooming": "Grooming",
        "map_view": "Map view",
        "grooming_legend": "Time since groomed",
        "bucket_today": "Today",
        "bucket_1_3": "1\u20133 days",
        "bucket_4_6": "4\u20136 days",
        "bucket_7_10": "7\u201310 days",
        "bucket_11_14": "11\u201314 days",
        "bucket_older": "Older or never",
        "groomed_ago": "{condition} {ago}",
        "never_groomed": "Not groomed in the last 14 days",
        "groomer_now": "Grooming now: {name}",
    },
    "fr": {
        "site_title": "État des sentiers",
        "index_heading": "Réseaux de sentiers",
        "index_intro": "L'état des sentiers en direct, mis à jour par ceux qui les gèrent.",
        "index_empty": "Aucun réseau de sentiers n'est encore publié.",
        "open_of_total": "{open} sentiers ouverts sur {total}",
        "map_of": "Carte des sentiers de {name}",
        "open": "Ouvert",
        "caution": "Prudence",
        "closed": "Fermé",
        "lift": "Remontée",
        "lifts": "Remontées",
        "dashed": "Sentier d'été ou non officiel",
        "one_way": "Sens unique",
        "legend": "Légende",
        "skip_to_list": "Aller à la liste des sentiers",
        "trails": "Sentiers",
        "activity": "Activité",
        "status": "État",
        "all_activities": "Toutes les activités",
        "notices": "Avis",
        "label_colon": "{label} : ",
        "info": "Information",
        "warning": "Avertissement",
        "danger": "Danger",
        "snow_report": "Rapport de neige",
        "baseDepth": "Base",
        "twentyFourHours": "Dernières 24 h",
        "fourtyEightHours": "Dernières 48 h",
        "sevenDays": "7 derniers jours",
        "seasonTotal": "Total de la saison",
        "lastSnowAmount": "Dernière chute",
        "upperElevationDepth": "Haut de la montagne",
        "lastSnowDate": "Dernière neige",
        "weather": "Météo",
        "feels_like": "ressenti",
        "wind": "vent",
        "conditions": "Conditions",
        "ago_minutes": "il y a {n} min",
        "ago_hours": "il y a {n} h",
        "ago_days": "il y a {n} j",
        "unconfirmed_since": "Non confirmé : dernière confirmation {ago}",
        "never_confirmed": "Non confirmé : jamais confirmé",
        "every_activity_closed": "Toutes les activités sont fermées",
        "part_n": "partie nord",
        "part_ne": "partie nord-est",
        "part_e": "partie est",
        "part_se": "partie sud-est",
        "part_s": "partie sud",
        "part_sw": "partie sud-ouest",
        "part_w": "partie ouest",
        "part_nw": "partie nord-ouest",
        "just_now": "à l'instant",
        "updated": "Mis à jour {time}",
        "live_updated": "En direct · mis à jour {time}",
        "reconnecting_updated": "Reconnexion… · mis à jour {time}",
        "change_line": "{name} : {status}",
        "change_gone": "{name} : n'est plus affiché",
        "more_changes": "et {n} autres changements",
        "loading": "Chargement de la carte…",
        "load_failed": "La carte n'a pas pu être chargée. Nouvel essai sous peu.",
        "no_trails": "Aucun sentier pour cette activité.",
        "wait_time": "Attente {n} min",
        "more": "Plus d'information",
        "full_map": "Ouvrir la carte complète",
        # Fils et changements planifiés (issue 23)
        "feed_title": "{name} : état des sentiers et nouvelles",
        "feed_subtitle": "Avis, conditions, bulletins de neige, damage et changements d'état "
        "des sentiers.",
        "calendar_title": "{name} : fermetures planifiées",
        "follows_activities": "État de ses activités",
        "all_trails": "Tous les sentiers",
        "conditions_on": "Conditions sur {trails} : {conditions}",
        "groomed": "Damé : {trails}",
        "until": "Jusqu'au {time}",
        "was": "Était : {status}",
        "scheduled_change": "Changement planifié",
        "until_further_notice": "Jusqu'à nouvel ordre.",
        "scheduled_heading": "Changements planifiés",
        "schedule_until": "{status} jusqu'à {end}",
        "schedule_window": "{status} {start} \u2013 {end}",
        "schedule_from": "{status} à partir de {start}",
        "schedule_every_day": "chaque jour",
        "atom_feed": "Fil Atom",
        "closures_calendar": "Calendrier des fermetures",
        "noscript": "La carte a besoin de JavaScript. Liste de l'état des sentiers :",
        "difficulty_circle": "Facile",
        "difficulty_square": "Difficile",
        "difficulty_diamond": "Très difficile",
        "difficulty_doubleDiamond": "Experts seulement",
        "difficulty_terrainPark": "Parc à neige",
        "subscribe_heading": "Recevoir les alertes",
        "subscribe_intro": "Avis et conditions par courriel ou texto. Nous envoyons d'abord "
        "une confirmation ; rien n'est envoyé avant que vous confirmiez.",
        "email": "Courriel",
        "phone": "Cellulaire (avec l'indicatif du pays, p. ex. +1 514 555 0123)",
        "subscribe": "S'abonner",
        "check_heading": "Vérifiez vos messages",
        "check_email": "Si {email} peut recevoir des courriels, un lien de confirmation "
        "est en route. Ouvrez-le dans les 24 heures.",
        "check_phone": "Si {phone} peut recevoir des textos, un code à 6 chiffres est en "
        "route. Entrez-le ici dans les 30 minutes.",
        "code": "Code",
        "confirm": "Confirmer",
        "wrong_code": "Ce code n'est pas le bon. Vérifiez le texto et réessayez.",
        "confirmed_heading": "Vous êtes abonné",
        "confirmed": "{contact} recevra les nouvelles de {name}. "
        "Chaque message contient un lien de désabonnement.",
        "expired_heading": "Cette confirmation a expiré",
        "expired": "Le lien ou le code n'est plus valide (déjà utilisé, trop ancien ou "
        "trop d'essais). Abonnez-vous de nouveau depuis la carte.",
        "too_many_heading": "Trop de demandes",
        "too_many": "Veuillez patienter un moment avant de réessayer.",
        "invalid_heading": "Vérifiez le formulaire",
        "email_invalid": "{email} n'est pas une adresse courriel valide.",
        "email_not_public": "Nous ne pouvons pas écrire à {email} : donnez une adresse d'un "
        "domaine public, comme nom@exemple.com.",
        "email_too_long": "La partie de {email} avant le @ est trop longue : les serveurs de "
        "courriel acceptent au plus 64 caractères.",
        "phone_invalid": "{phone} n'est pas un numéro de téléphone reconnu. Donnez-le avec "
        "l'indicatif du pays, p. ex. +1 514 555 0123.",
        "phone_not_mobile": "{phone} ne peut pas recevoir nos textos : seuls les numéros de "
        "cellulaire le peuvent (pas les numéros surtaxés, à coûts partagés, personnels, de "
        "téléavertisseur, de messagerie vocale ou satellites). Vous pouvez vous abonner par "
        "courriel.",
        "phone_abroad": "L'abonnement par texto est ouvert aux cellulaires de {countries} "
        "seulement, et {phone} n'en est pas un. Vous pouvez vous abonner par courriel.",
        "sms_off": "L'abonnement par texto n'est pas offert ici. Vous pouvez vous abonner par "
        "courriel.",
        "sms_paused_heading": "L'abonnement par texto est suspendu",
        "sms_paused": "L'abonnement par texto est suspendu pour aujourd'hui. Vous pouvez vous "
        "abonner par courriel dès maintenant, ou par texto demain.",
        "sms_paused_no_code": "L'abonnement par texto est suspendu pour aujourd'hui : aucun "
        "code n'a été envoyé au {phone}. Réessayez par texto demain.",
        "back_to_map": "Retour à la carte",
        "confirm_link_heading": "Confirmez votre abonnement",
        "confirm_link": "Appuyez sur le bouton pour recevoir les nouvelles de {name} à {email}.",
        "confirm_link_button": "Confirmer mon abonnement",
        "unsubscribe_ask_heading": "Se désabonner ?",
        "unsubscribe_ask": "{address} reçoit les nouvelles de {name}. "
        "Appuyez sur le bouton pour ne plus les recevoir.",
        "unsubscribe_button": "Me désabonner",
        "unsubscribed_heading": "Vous êtes désabonné",
        "unsubscribed": "Nous n'enverrons plus de nouvelles de {name} à {address}. "
        "Pour les recevoir de nouveau, abonnez-vous depuis la carte.",
        "unknown_link_heading": "Lien non reconnu",
        "unknown_link": "Ce lien de désabonnement n'est pas valide. Utilisez le lien du "
        "dernier message reçu, ou répondez ARRET à un texto.",
        "not_found_heading": "Réseau de sentiers introuvable",
        "not_found": "Il n'y a pas de carte publique des sentiers à cette adresse.",
        "see_all": "Voir tous les réseaux de sentiers",
        "page_not_found_heading": "Page introuvable",
        "page_not_found": "Il n'y a pas de page à cette adresse.",
        "server_error_heading": "Une erreur s'est produite",
        "server_error": "Cette page n'a pas pu être affichée à cause d'une erreur de notre côté. "
        "Veuillez réessayer dans un instant.",
        "embed_heading": "Intégrer cette carte",
        "embed_map": "Carte",
        "embed_list": "Liste d'état",
        "view_status": "État",
        "view_grooming": "Damage",
        "map_view": "Vue de la carte",
        "grooming_legend": "Temps depuis le damage",
        "bucket_today": "Aujourd'hui",
        "bucket_1_3": "1 à 3 jours",
        "bucket_4_6": "4 à 6 jours",
        "bucket_7_10": "7 à 10 jours",
        "bucket_11_14": "11 à 14 jours",
        "bucket_older": "Plus ancien ou jamais",
        "groomed_ago": "{condition} {ago}",
        "never_groomed": "Pas damé ces 14 derniers jours",
        "groomer_now": "Damage en cours : {name}",
    },
}


def texts_for(language: str) -> dict[str, str]:
    return TEXTS.get(language, TEXTS["en"])


def ago(texts: dict[str, str], moment: datetime, now: datetime) -> str:
    """ "3 h ago", as the map script words it (map.js `ago`)."""
    minutes = int((now - moment).total_seconds() // 60)
    if minutes < 1:
        return texts["just_now"]
    if minutes < 60:
        return texts["ago_minutes"].format(n=minutes)
    hours = minutes // 60
    if hours < 48:
        return texts["ago_hours"].format(n=hours)
    return texts["ago_days"].format(n=hours // 24)


def unconfirmed_text(texts: dict[str, str], confirmed_on: datetime | None, now: datetime) -> str:
    """What the public pages say of a trail whose status is unconfirmed."""
    if confirmed_on is None:
        return texts["never_confirmed"]
    return texts["unconfirmed_since"].format(ago=ago(texts, confirmed_on, now))
