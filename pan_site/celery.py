"""The Celery app. Tasks are autodiscovered from the apps' ``tasks.py``.

Settings come from Django settings under the ``CELERY_`` prefix. In embedded mode
(no ``REDIS_URL``) the broker is kombu's in-memory transport and the worker runs as
a thread inside the web process (see ``pan_site.embedded``).
"""

import os

from celery import Celery

os.environ.setdefault("DJANGO_SETTINGS_MODULE", "pan_site.settings")

app = Celery("pan_site")
app.config_from_object("django.conf:settings", namespace="CELERY")
app.autodiscover_tasks()
