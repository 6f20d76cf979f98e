from __future__ import annotations

import base64
import binascii
import re

from cryptography.hazmat.primitives.asymmetric import ec
from django import forms
from django.utils.translation import gettext as _
from django.utils.translation import gettext_lazy

from notifications.selectors import mail_kind_choices, push_kind_choices


class NotificationChoicesForm(forms.Form):
    mailed = forms.MultipleChoiceField(
        label=gettext_lazy("Send me an e-mail, when no page of the site is open, for"),
        choices=mail_kind_choices,
        required=False,
        widget=forms.CheckboxSelectMultiple,
    )
    pushed = forms.MultipleChoiceField(
        label=gettext_lazy("Push to the browsers below, when no page of the site is open, for"),
        choices=push_kind_choices,
        required=False,
        widget=forms.CheckboxSelectMultiple,
    )


def _unb64url(text: str) -> bytes:
    if not re.fullmatch(r"[A-Za-z0-9_-]+=*", text):
        raise forms.ValidationError("not base64url")
    try:
        return base64.urlsafe_b64decode(text.rstrip("=") + "=" * (-len(text.rstrip("=")) % 4))
    except (binascii.Error, ValueError) as error:
        raise forms.ValidationError("not base64url") from error


class PushSubscriptionForm(forms.Form):
    """What a browser's ``PushSubscription`` holds: the push service's URL for it (only
    https: the site's worker posts there) and the keys its pushes are encrypted to."""

    endpoint = forms.URLField(max_length=1000, assume_scheme="https")
    p256dh = forms.CharField(max_length=100)
    auth = forms.CharField(max_length=40)

    def clean_endpoint(self) -> str:
        endpoint = self.cleaned_data["endpoint"]
        if not endpoint.startswith("https://"):
            raise forms.ValidationError("a push service is reached over https")
        return endpoint

    def clean_p256dh(self) -> str:
        key = self.cleaned_data["p256dh"]
        point = _unb64url(key)
        try:
            ec.EllipticCurvePublicKey.from_encoded_point(ec.SECP256R1(), point)
        except ValueError as error:
            raise forms.ValidationError("not a P-256 public key") from error
        if len(point) != 65:
            raise forms.ValidationError("not an uncompressed P-256 point")
        return key

    def clean_auth(self) -> str:
        secret = self.cleaned_data["auth"]
        if len(_unb64url(secret)) != 16:
            raise forms.ValidationError("an auth secret is 16 bytes")
        return secret


BROWSERS = (  # the first that matches names the browser (Edge and Opera say "Chrome" too)
    ("Edg", "Edge"),
    ("OPR", "Opera"),
    ("SamsungBrowser", "Samsung Internet"),
    ("Firefox", "Firefox"),
    ("FxiOS", "Firefox"),
    ("CriOS", "Chrome"),
    ("Chrome", "Chrome"),
    ("Safari", "Safari"),
)
SYSTEMS = (
    ("Android", "Android"),
    ("iPhone", "iOS"),
    ("iPad", "iPadOS"),
    ("CrOS", "ChromeOS"),
    ("Windows", "Windows"),
    ("Mac OS X", "macOS"),
    ("Linux", "Linux"),
)


def device_name(user_agent: str) -> str:
    """'Chrome on Android': what the list of a player's browsers calls one, from its
    User-Agent (only a label: nothing depends on it)."""
    browser = next((name for mark, name in BROWSERS if mark in user_agent), "")
    system = next((name for mark, name in SYSTEMS if mark in user_agent), "")
    if browser and system:
        return _("%(browser)s on %(system)s") % {"browser": browser, "system": system}
    return browser or system or _("A browser")
