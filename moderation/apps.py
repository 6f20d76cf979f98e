from django.apps import AppConfig
from django.utils.translation import gettext_lazy as _


class ModerationConfig(AppConfig):
    """Bans, mutes, reports, interventions at tables and the audit log: the floor above
    games and tournaments, which hears from games through its signals and registries."""

    name = "moderation"
    verbose_name = _("Moderation")

    def ready(self) -> None:
        from games import consumers_moderation, signals
        from moderation import commands, services

        signals.chat_flooded.connect(services.on_chat_flooded, dispatch_uid="moderation")
        for action, run in commands.MODERATOR_COMMANDS.items():
            consumers_moderation.register_moderator_command(action, run)
