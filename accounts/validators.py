"""Username rules: letters, digits and . _ - only, so that /u/<username>/ is a clean URL."""

from django.core.validators import RegexValidator
from django.utils.translation import gettext_lazy as _

username_validators = [
    RegexValidator(
        r"^[A-Za-z0-9._-]{3,30}$",
        _("Use 3 to 30 characters: letters, digits, dots, hyphens or underscores."),
    )
]
