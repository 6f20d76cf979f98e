from django.apps import AppConfig
from django.utils.translation import gettext_lazy as _


class TournamentsConfig(AppConfig):
    name = "tournaments"
    verbose_name = _("Tournaments")

    def ready(self) -> None:
        from core import fragments
        from games import selectors as games_selectors
        from games import signals
        from tournaments import arena_selectors, renderers, selectors, services

        signals.hand_finished.connect(services.on_hand_finished, dispatch_uid="tournaments")
        fragments.register("user.follow", renderers.follow_fragment)
        games_selectors.register_tournament_end(selectors.table_tournament_end)
        games_selectors.register_berserk(arena_selectors.berserk_offer)
        games_selectors.register_lobby_tournaments(selectors.lobby_tournaments)
