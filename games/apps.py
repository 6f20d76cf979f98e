from django.apps import AppConfig
from django.utils.translation import gettext_lazy as _


class GamesConfig(AppConfig):
    name = "games"
    verbose_name = _("Games")

    def ready(self) -> None:
        from games import ratings, selectors, signals
        from live import LIVE

        signals.match_finished.connect(ratings.on_match_finished, dispatch_uid="ratings")
        LIVE.connect(selectors.SnapshotSource())  # the tables the live room keeps
