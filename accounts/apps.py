from django.apps import AppConfig
from django.utils.translation import gettext_lazy as _


class AccountsConfig(AppConfig):
    name = "accounts"
    # Not "Accounts": allauth's app (e-mail addresses) has that name in the admin.
    verbose_name = _("Users")

    def ready(self) -> None:
        from allauth.account.signals import password_reset

        from accounts import login_budget

        def lift_the_lock(sender: object, request: object, user: object, **kwargs: object) -> None:
            """A password reset proves the owner: the failed logins stop counting."""
            login_budget.clear(user)

        password_reset.connect(lift_the_lock, dispatch_uid="accounts.lift_the_lock", weak=False)
