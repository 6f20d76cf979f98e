from django.apps import AppConfig
from django.utils.translation import gettext_lazy as _


class AccountsConfig(AppConfig):
    name = "accounts"
    # Not "Accounts": allauth's app (e-mail addresses) has that name in the admin.
    verbose_name = _("Users")
