from django.apps import AppConfig
from django.utils.translation import gettext_lazy as _


class NotificationsConfig(AppConfig):
    name = "notifications"
    verbose_name = _("Notifications")

    def ready(self) -> None:
        from notifications import events, receivers, renderers
        from social.consumers import register_me_fragment

        receivers.connect()
        register_me_fragment(events.CHANGED, renderers.bell_fragment)
