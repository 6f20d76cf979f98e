from django.apps import AppConfig
from django.utils.translation import gettext_lazy as _


class AccountsConfig(AppConfig):
    name = "accounts"
    verbose_name = _("Accounts")

    def ready(self) -> None:
        # Moderation's hooks into games, until moderation is an app of its own (#13).
        from accounts import moderation, moderation_commands
        from games import consumers_moderation, signals

        signals.chat_flooded.connect(moderation.on_chat_flooded, dispatch_uid="moderation")
        for action, run in moderation_commands.MODERATOR_COMMANDS.items():
            consumers_moderation.register_moderator_command(action, run)
