from django.apps import AppConfig
from django.utils.translation import gettext_lazy as _


class ApiConfig(AppConfig):
    name = "api"
    verbose_name = _("Bot and Board API")

    def ready(self) -> None:
        # The event streams hear of matches starting and ending (games never imports api).
        from api import signals

        signals.connect()
