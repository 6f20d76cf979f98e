from django.apps import AppConfig
from django.utils.translation import gettext_lazy as _


class SocialConfig(AppConfig):
    name = "social"
    verbose_name = _("Friends and challenges")

    def ready(self) -> None:
        # An API event stream opens with the user's open challenges (the api floor never
        # imports this one).
        from api.streams import register_opening_lines
        from social.selectors import open_challenge_lines

        register_opening_lines(open_challenge_lines)
