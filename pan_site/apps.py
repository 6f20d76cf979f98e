from django.apps import AppConfig


class PanSiteConfig(AppConfig):
    """The project package as an app: site-wide commands, tasks and templates."""

    name = "pan_site"
    verbose_name = "Pan online"
