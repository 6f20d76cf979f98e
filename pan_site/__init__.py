"""Pan online: project package (settings, URLs, ASGI routing, the Celery app)."""

from pan_site.celery import app as celery_app

__all__ = ("celery_app",)
