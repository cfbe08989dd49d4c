"""Limits every interface applies alike."""

TEXT_LIMIT = 2000  # characters of any free-text field (names, descriptions, links)
