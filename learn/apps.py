from django.apps import AppConfig
from django.utils.translation import gettext_lazy as _


class LearnConfig(AppConfig):
    name = "learn"
    verbose_name = _("Learn")
