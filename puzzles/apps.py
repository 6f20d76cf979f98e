from django.apps import AppConfig
from django.utils.translation import gettext_lazy as _


class PuzzlesConfig(AppConfig):
    name = "puzzles"
    verbose_name = _("Puzzles")
    default_auto_field = "django.db.models.BigAutoField"

    def ready(self) -> None:
        from django.utils import timezone

        from games import selectors as games_selectors
        from games import signals
        from puzzles import selectors, services

        signals.hand_finished.connect(services.on_hand_finished, dispatch_uid="puzzles")
        games_selectors.register_lobby_puzzle(
            lambda: selectors.daily_puzzle(today=timezone.localdate())
        )
