from django.apps import AppConfig
from django.utils.translation import gettext_lazy as _


class FairPlayConfig(AppConfig):
    """Fair play: signals over hand histories, the moderators' queue and cases, the mark,
    its refunds and the appeal. The floor above moderation (whose audit log, permission
    checks and bans it uses), which hears from games through its signals."""

    name = "fairplay"
    verbose_name = _("Fair play")

    def ready(self) -> None:
        from fairplay import services
        from games import signals

        signals.hand_finished.connect(services.on_hand_finished, dispatch_uid="fairplay")
