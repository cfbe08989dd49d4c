"""Words of "Report a problem" (the map's form, its answers, the page without script), in the
two languages of a trail system. The page and the script read the same table."""

REPORT_TEXTS: dict[str, dict[str, str]] = {
    "en": {
        "report_button": "Report a problem",
        "report_heading": "Report a problem on the trails",
        "report_not_emergency": "Not for emergencies: in an emergency call your local "
        "emergency number. The crew reads reports when it can.",
        "report_category": "What did you see?",
        "fallenTree": "Fallen tree",
        "washout": "Washout",
        "ice": "Ice",
        "water": "Water or flooding",
        "signage": "Missing or wrong sign",
        "obstruction": "Something blocks the trail",
        "other": "Something else",
        "report_description": "Short description",
        "report_where": "Where is it?",
        "report_use_position": "Use my position",
        "report_tap_map": "or tap the place on the map",
        "report_no_place": "No place yet: use your position or tap the map.",
        "report_near": "Near {trail} ({distance} m away)",
        "report_place_set": "Place set",
        "report_photo": "Photo (optional)",
        "report_email": "Your e-mail (optional): we write once, when it is resolved",
        "report_send": "Send the report",
        "report_cancel": "Cancel",
        "report_sending": "Sending…",
        "report_received_heading": "Report received",
        "report_received": "Thank you: the crew of {name} has your report.",
        "report_grouped": "Thank you: others reported this too ({count} reports); the crew "
        "of {name} has it.",
        "report_retrying": "Could not send: no connection. Your report is kept here and "
        "sent again in {seconds} s.",
        "report_retry_now": "Send again now",
        "report_failed": "Could not send your report: {message}",
        "report_paused": "{name} has received all the reports it can take today. "
        "Please tell the crew directly{contact}.",
        "report_contact": ": {contact}",
        "report_too_many": "Too many reports from this connection; please try again later.",
        "report_busy": "Too many reports right now; please try again later.",
        "report_photo_too_large": "The photo is too large (over 8 MB); choose a smaller one.",
        "report_refused": "This report could not be accepted.",
        "report_off": "{name} does not take reports on this map.",
        "report_back": "Back to the map",
    },
    "fr": {
        "report_button": "Signaler un problème",
        "report_heading": "Signaler un problème sur les sentiers",
        "report_not_emergency": "Pas pour les urgences : en cas d'urgence, appelez le "
        "numéro d'urgence local. L'équipe lit les signalements dès qu'elle le peut.",
        "report_category": "Qu'avez-vous vu ?",
        "fallenTree": "Arbre tombé",
        "washout": "Ravinement",
        "ice": "Glace",
        "water": "Eau ou inondation",
        "signage": "Panneau manquant ou erroné",
        "obstruction": "Quelque chose bloque le sentier",
        "other": "Autre chose",
        "report_description": "Brève description",
        "report_where": "Où est-ce ?",
        "report_use_position": "Utiliser ma position",
        "report_tap_map": "ou touchez l'endroit sur la carte",
        "report_no_place": "Aucun endroit : utilisez votre position ou touchez la carte.",
        "report_near": "Près de {trail} (à {distance} m)",
        "report_place_set": "Endroit choisi",
        "report_photo": "Photo (facultatif)",
        "report_email": "Votre courriel (facultatif) : nous écrivons une fois, quand c'est réglé",
        "report_send": "Envoyer le signalement",
        "report_cancel": "Annuler",
        "report_sending": "Envoi…",
        "report_received_heading": "Signalement reçu",
        "report_received": "Merci : l'équipe de {name} a reçu votre signalement.",
        "report_grouped": "Merci : d'autres l'ont aussi signalé ({count} signalements) ; "
        "l'équipe de {name} l'a reçu.",
        "report_retrying": "Envoi impossible : pas de connexion. Votre signalement est gardé "
        "ici et renvoyé dans {seconds} s.",
        "report_retry_now": "Renvoyer maintenant",
        "report_failed": "Votre signalement n'a pas pu être envoyé : {message}",
        "report_paused": "{name} a reçu tous les signalements possibles aujourd'hui. "
        "Prévenez l'équipe directement{contact}.",
        "report_contact": " : {contact}",
        "report_too_many": "Trop de signalements depuis cette connexion ; réessayez plus tard.",
        "report_busy": "Trop de signalements en ce moment ; réessayez plus tard.",
        "report_photo_too_large": "La photo est trop lourde (plus de 8 Mo) ; choisissez-en "
        "une plus petite.",
        "report_refused": "Ce signalement n'a pas pu être accepté.",
        "report_off": "{name} ne reçoit pas de signalements sur cette carte.",
        "report_back": "Retour à la carte",
    },
}
CATEGORIES = ("fallenTree", "washout", "ice", "water", "signage", "obstruction", "other")


def report_texts(language: str) -> dict[str, str]:
    return REPORT_TEXTS.get(language, REPORT_TEXTS["en"])
