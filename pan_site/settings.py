"""Settings for Pan online, all read from the environment in this one place.

Two ways to run, one code base (see DESIGN.md):

* embedded (no ``REDIS_URL``): SQLite unless ``DATABASE_URL`` says otherwise,
  Channels' in-memory layer, Celery on kombu's in-memory transport with a
  worker and beat running as threads inside the web process;
* real services (``REDIS_URL`` set): channels-redis, a Redis broker, and
  separate ``celery worker`` and ``celery beat`` processes.

Nothing else in the project reads ``os.environ``.
"""

from __future__ import annotations

import os
import secrets
from email.utils import parseaddr
from pathlib import Path

import dj_database_url
from django.core.exceptions import ImproperlyConfigured
from django.utils.translation import gettext_lazy as _
from kombu import Exchange, Queue

BASE_DIR = Path(__file__).resolve().parent.parent
VAR_DIR = Path(os.environ.get("PAN_VAR_DIR", BASE_DIR / "var"))


def env_bool(name: str, default: bool) -> bool:
    """Read a boolean from the environment; refuse anything that is not clearly one."""
    raw = os.environ.get(name)
    if raw is None or raw == "":
        return default
    value = raw.strip().lower()
    if value in {"1", "true", "yes", "on"}:
        return True
    if value in {"0", "false", "no", "off"}:
        return False
    raise ImproperlyConfigured(f"{name}={raw!r} is not a boolean (use true or false)")


def env_list(name: str, default: str = "") -> list[str]:
    """A comma-separated list from the environment, blanks dropped."""
    return [item.strip() for item in os.environ.get(name, default).split(",") if item.strip()]


def _secret_key() -> str:
    """SECRET_KEY from the environment, else a random key kept in var/ (never a fixed one)."""
    key = os.environ.get("SECRET_KEY", "")
    if key:
        return key
    VAR_DIR.mkdir(parents=True, exist_ok=True)
    key_file = VAR_DIR / "secret_key"
    if not key_file.exists():
        key_file.write_text(secrets.token_urlsafe(64))
        key_file.chmod(0o600)
    return key_file.read_text().strip()


# --- Core ---------------------------------------------------------------------
DEBUG = env_bool("DEBUG", False)
SECRET_KEY = _secret_key()
ALLOWED_HOSTS = env_list("ALLOWED_HOSTS", "127.0.0.1,localhost")
CSRF_TRUSTED_ORIGINS = env_list("CSRF_TRUSTED_ORIGINS")
CI = env_bool("CI", False)

# Behind TLS in production: redirect, secure cookies, HSTS. Off by default in development.
HTTPS = env_bool("HTTPS", not DEBUG)
SECURE_SSL_REDIRECT = HTTPS
SESSION_COOKIE_SECURE = HTTPS
CSRF_COOKIE_SECURE = HTTPS
SECURE_HSTS_SECONDS = 60 * 60 * 24 * 365 if HTTPS else 0
SECURE_HSTS_INCLUDE_SUBDOMAINS = HTTPS
SECURE_HSTS_PRELOAD = HTTPS
SECURE_PROXY_SSL_HEADER = ("HTTP_X_FORWARDED_PROTO", "https") if HTTPS else None
SECURE_CONTENT_TYPE_NOSNIFF = True
SECURE_REFERRER_POLICY = "same-origin"
X_FRAME_OPTIONS = "DENY"
# The proxy's (and a monitor's) health check may speak plain HTTP.
SECURE_REDIRECT_EXEMPT = [r"^healthz$"]
# Reverse proxies whose X-Forwarded-For is believed (addresses or networks); nobody else's.
TRUSTED_PROXIES = env_list("TRUSTED_PROXIES")

INSTALLED_APPS = [
    "daphne",
    "django.contrib.admin",
    "django.contrib.auth",
    "django.contrib.contenttypes",
    "django.contrib.sessions",
    "django.contrib.messages",
    "whitenoise.runserver_nostatic",
    "django.contrib.staticfiles",
    "django.contrib.humanize",
    "channels",
    "django_htmx",
    "template_partials",
    "allauth",
    "allauth.account",
    "allauth.mfa",
    "pan_site",
    "accounts",
    "games",
    "tournaments",
    "puzzles",
    "pairing",
    "learn",
    "moderation",
    "fairplay",
    "api",
    "social",
    "notifications",
]

MIDDLEWARE = [
    "pan_site.proxy.ForwardedForMiddleware",  # first: everything after sees the real client
    "pan_site.compression.PageGZipMiddleware",  # compresses what every later one wrote
    "pan_site.csp.ContentSecurityPolicyMiddleware",
    "django.middleware.security.SecurityMiddleware",
    "whitenoise.middleware.WhiteNoiseMiddleware",
    "django.contrib.sessions.middleware.SessionMiddleware",
    "django.middleware.locale.LocaleMiddleware",
    "django.middleware.common.CommonMiddleware",
    "django.middleware.csrf.CsrfViewMiddleware",
    "django.contrib.auth.middleware.AuthenticationMiddleware",
    "accounts.middleware.UserLanguageMiddleware",
    "accounts.middleware.DeviceMiddleware",  # fair play: the device cookie, where one is seen
    "api.middleware.ApiEdgeMiddleware",  # after the languages: /api/ speaks its own
    "django.contrib.messages.middleware.MessageMiddleware",
    "moderation.middleware.ModerationMiddleware",  # bans end sessions; report outcomes
    "social.middleware.LastSeenMiddleware",  # who is online (the friends list)
    "django.middleware.clickjacking.XFrameOptionsMiddleware",
    "django_htmx.middleware.HtmxMiddleware",
    "allauth.account.middleware.AccountMiddleware",
]

ROOT_URLCONF = "pan_site.urls"
ASGI_APPLICATION = "pan_site.asgi.application"
WSGI_APPLICATION = None

TEMPLATES = [
    {
        "BACKEND": "django.template.backends.django.DjangoTemplates",
        "DIRS": [BASE_DIR / "templates"],
        "APP_DIRS": True,
        "OPTIONS": {
            "context_processors": [
                "django.template.context_processors.request",
                "django.template.context_processors.i18n",
                "django.contrib.auth.context_processors.auth",
                "django.contrib.messages.context_processors.messages",
                "tournaments.context_processors.tournament_notices",
                "games.context_processors.waiting_games",
            ],
        },
    },
]

# --- Database -----------------------------------------------------------------
DATABASE_URL = os.environ.get("DATABASE_URL") or f"sqlite:///{VAR_DIR / 'db.sqlite3'}"
if DATABASE_URL.startswith("sqlite"):
    VAR_DIR.mkdir(parents=True, exist_ok=True)
# Persistent connections: the websocket consumers' thread pool would otherwise open a
# new PostgreSQL connection for every call (several per move). No health
# check: it costs a round trip before every call; a broken connection is dropped after
# the error it causes (Django's close_old_connections).
DATABASES = {"default": dj_database_url.parse(DATABASE_URL, conn_max_age=600)}
if DATABASES["default"]["ENGINE"] == "django.db.backends.sqlite3":
    # Several threads (web, embedded worker) write to one file: wait for the lock.
    DATABASES["default"].setdefault("OPTIONS", {})["timeout"] = 20
    DATABASES["default"]["OPTIONS"]["transaction_mode"] = "IMMEDIATE"
# DATABASE_POOLER=transaction: PostgreSQL is reached through a pooler in transaction mode
# (PgBouncer's pool_mode = transaction), where consecutive transactions of one client may
# run on different server connections: no prepared statements (psycopg would prepare a
# query run five times, on both the sync and the async path, live.adb) and no
# server-side cursors, both of which live on one server connection.
DATABASE_POOLER = os.environ.get("DATABASE_POOLER", "")
if DATABASE_POOLER not in ("", "transaction"):
    raise ImproperlyConfigured("DATABASE_POOLER must be empty or 'transaction'")
if DATABASE_POOLER == "transaction":
    DATABASES["default"].setdefault("OPTIONS", {})["prepare_threshold"] = None
    DATABASES["default"]["DISABLE_SERVER_SIDE_CURSORS"] = True
DEFAULT_AUTO_FIELD = "django.db.models.BigAutoField"

# --- Redis, Channels, Celery ----------------------------------------------------
REDIS_URL = os.environ.get("REDIS_URL", "")
EMBEDDED = not REDIS_URL

if EMBEDDED:
    CHANNEL_LAYERS = {"default": {"BACKEND": "channels.layers.InMemoryChannelLayer"}}
    CELERY_BROKER_URL = "memory://localhost/"
else:
    CHANNEL_LAYERS = {
        "default": {
            # Redis pub/sub: a group event is one PUBLISH, which each daphne process with
            # sockets in the group receives once and hands to them (channels_redis's
            # core layer writes one sorted set per socket and pops each one back, which
            # costs a daphne far more CPU and latency per event). What it gives up:
            # nothing waits in Redis for a socket that is not listening, and a socket
            # that reconnects reads the whole table anyway. The layer is the project's own
            # on redis-py's public API (live.layer): it hands a group's message to
            # the sending process's sockets at once and decodes it once for them all.
            "BACKEND": "live.layer.PubSubChannelLayer",
            "CONFIG": {
                "hosts": [
                    {
                        "address": REDIS_URL,
                        "socket_timeout": 30,  # a publish never hangs on a stuck Redis
                        "socket_connect_timeout": 5,
                        "socket_keepalive": True,
                    }
                ],
                "prefix": os.environ.get("CHANNELS_PREFIX", "pan"),
            },
        }
    }
    CELERY_BROKER_URL = REDIS_URL

# The queues are named after CELERY_QUEUE so that several sites (or test runs) share a
# Redis. No timeout travels on the main one: a clock ticker next to every worker and in
# beat reads the due deadlines from the database (games.clock), so a backlog of bot moves
# never makes a clock late and no worker holds a timer until its deadline.
CELERY_TASK_DEFAULT_QUEUE = os.environ.get("CELERY_QUEUE", "pan")
# A hand's analysis takes seconds of a core: it has a queue of its own, and a worker of
# its own with few threads (the Procfile's `analysis`, a capped thread in embedded mode),
# so that it never holds up a bot's move, a next hand or a tournament on the main queue.
# The search of finished hands for puzzles (puzzles.tasks) runs there too.
CELERY_ANALYSIS_QUEUE = f"{CELERY_TASK_DEFAULT_QUEUE}-analysis"
# A correspondence game's follow-ups (the next hand's deal, a bot's move at its table) have
# a queue of their own, and a worker of their own (the Procfile's `correspondence`, a
# thread in embedded mode): a burst of day deadlines falling due together sends hundreds
# of them at once, and a bullet player's next hand or bot must never wait behind them.
# Their tasks are sent there by the caller, which knows the hand's clock (games.events).
CELERY_CORRESPONDENCE_QUEUE = f"{CELERY_TASK_DEFAULT_QUEUE}-correspondence"
CELERY_TASK_QUEUES = tuple(
    Queue(name, Exchange(name, type="direct"), routing_key=name)
    for name in (CELERY_TASK_DEFAULT_QUEUE, CELERY_ANALYSIS_QUEUE, CELERY_CORRESPONDENCE_QUEUE)
)
CELERY_TASK_ROUTES = {
    name: {"queue": CELERY_ANALYSIS_QUEUE}
    for name in ("games.analyse_hand", "puzzles.make_from_hand", "fairplay.hand")
}
CELERY_TASK_SERIALIZER = "json"
CELERY_ACCEPT_CONTENT = ["json"]
CELERY_TASK_IGNORE_RESULT = True
CELERY_RESULT_BACKEND = None
CELERY_TIMEZONE = "UTC"
CELERY_BROKER_CONNECTION_RETRY_ON_STARTUP = True
# A task is acknowledged only once it has run, and comes back if its worker dies.
CELERY_TASK_ACKS_LATE = True
CELERY_TASK_REJECT_ON_WORKER_LOST = True
CELERY_WORKER_PREFETCH_MULTIPLIER = 1
# Countdowns (a bot's pause, the deal of the next hand) fire within a tenth of a second.
CELERY_WORKER_TIMER_PRECISION = 0.1
# Redis redelivers unacknowledged messages after this; longer than any countdown.
CELERY_BROKER_TRANSPORT_OPTIONS = {"visibility_timeout": 60 * 60 * 2}
CELERY_BEAT_SCHEDULE: dict[str, dict] = {
    # Layer 3 of the clocks: timeouts every ticker missed, due next hands, stalled bots.
    "sweep-hands": {"task": "games.sweep_hands", "schedule": 2.0, "options": {"expires": 10.0}},
    # Tournaments due to start, and the next step of every running one.
    "sweep-tournaments": {
        "task": "tournaments.sweep",
        "schedule": 3.0,
        "options": {"expires": 3.0},
    },
    # Recurring tournaments created ahead, and the reminder a minute before each start.
    "create-scheduled-tournaments": {
        "task": "tournaments.create_scheduled",
        "schedule": 60.0,
        "options": {"expires": 60.0},
    },
    "remind-tournaments": {
        "task": "tournaments.remind",
        "schedule": 5.0,
        "options": {"expires": 5.0},
    },
    # Challenges whose challenger stopped waiting: written expired, both players told.
    "expire-challenges": {
        "task": "social.expire_challenges",
        "schedule": 5.0,
        "options": {"expires": 5.0},
    },
    # Fair play: sightings past 30 days, and the salts no address is hashed with any more.
    "forget-sightings": {
        "task": "accounts.forget_sightings",
        "schedule": 3600.0,
        "options": {"expires": 3600.0},
    },
    # Notices still waiting for their e-mail (a task lost with its worker): mailed now.
    "mail-pending-notifications": {
        "task": "notifications.mail_sweep",
        "schedule": 300.0,
        "options": {"expires": 300.0},
    },
    # Pushes still waiting for their first look (a task lost with its worker): sent now.
    "push-pending-notifications": {
        "task": "notifications.push_sweep",
        "schedule": 60.0,
        "options": {"expires": 60.0},
    },
}

# --- Quick pairing ("Play now") -----------------------------------------------------
# The waits (seconds) a seeker chooses from before he may fill the seats with bots. The
# browser tests offer one of a second, to fill a table with bots without a real wait.
PAIRING_WAITS = tuple(int(seconds) for seconds in env_list("PAIRING_WAITS", "10,30,60,120"))
# The site's calendar of arenas (tournaments.calendar): hourly bullet, blitz and rapid, and
# a daily one, created by the beat. Off: only the staff's schedules make tournaments.
ARENA_CALENDAR = env_bool("ARENA_CALENDAR", True)

# --- Fair play's detection (fairplay.services.cases) ------------------------------------
# The CPU of a hand's check on the analysis worker: deals per estimate (one for the
# mover's view, one per other person's hand known) and the strong bot's playouts for the
# move it would choose. At 24 and 100 a hand of four people takes about two seconds.
FAIRPLAY_PLAYOUTS = int(os.environ.get("FAIRPLAY_PLAYOUTS", "24"))
FAIRPLAY_BOT_PLAYOUTS = int(os.environ.get("FAIRPLAY_BOT_PLAYOUTS", "100"))
# A case opens when honest play shows signals as strong at most this often
# (fairplay.reference), on this many judged decisions at least.
FAIRPLAY_CASE_CHANCE = float(os.environ.get("FAIRPLAY_CASE_CHANCE", "0.001"))
FAIRPLAY_MIN_DECISIONS = int(os.environ.get("FAIRPLAY_MIN_DECISIONS", "30"))

# --- Cache (rate limits of allauth and of our own) --------------------------------
if EMBEDDED:
    CACHES = {"default": {"BACKEND": "django.core.cache.backends.locmem.LocMemCache"}}
else:
    CACHES = {
        "default": {
            "BACKEND": "django.core.cache.backends.redis.RedisCache",
            "LOCATION": REDIS_URL,
            "KEY_PREFIX": os.environ.get("CHANNELS_PREFIX", "pan"),
            # One connection pool per process, not one per websocket (pan_site/cache.py).
            "OPTIONS": {"pool_class": "pan_site.cache.SharedConnectionPool"},
        }
    }

# --- Accounts -------------------------------------------------------------------
AUTH_USER_MODEL = "accounts.User"
AUTHENTICATION_BACKENDS = [
    "django.contrib.auth.backends.ModelBackend",
    "allauth.account.auth_backends.AuthenticationBackend",
]
AUTH_PASSWORD_VALIDATORS = [
    {"NAME": "django.contrib.auth.password_validation.UserAttributeSimilarityValidator"},
    {"NAME": "django.contrib.auth.password_validation.MinimumLengthValidator"},
    {"NAME": "django.contrib.auth.password_validation.CommonPasswordValidator"},
    {"NAME": "django.contrib.auth.password_validation.NumericPasswordValidator"},
]
LOGIN_URL = "account_login"
LOGIN_REDIRECT_URL = "home"

ACCOUNT_LOGIN_METHODS = {"username", "email"}
ACCOUNT_SIGNUP_FIELDS = ["username*", "email*", "password1*", "password2*"]
ACCOUNT_UNIQUE_EMAIL = True
ACCOUNT_EMAIL_VERIFICATION = os.environ.get("ACCOUNT_EMAIL_VERIFICATION", "mandatory")
ACCOUNT_CONFIRM_EMAIL_ON_GET = False
# Confirming the address signs the new user in, where allauth allows it safely: in the
# browser session that signed up (a link opened elsewhere confirms, then asks to log in).
ACCOUNT_LOGIN_ON_EMAIL_CONFIRMATION = True
ACCOUNT_LOGOUT_ON_PASSWORD_CHANGE = False
ACCOUNT_USERNAME_MIN_LENGTH = 3
ACCOUNT_USERNAME_VALIDATORS = "accounts.validators.username_validators"
ACCOUNT_ADAPTER = "accounts.adapters.AccountAdapter"
ACCOUNT_RATE_LIMITS = {
    # allauth's defaults, written out so that they are visible and tunable, but for
    # "login_failed": its per-login part is the project's own, one budget per account
    # whichever of its names is typed (accounts.login_budget: 5 in 5 minutes).
    "login": "30/m/ip",
    "login_failed": "10/m/ip",
    "signup": "20/m/ip",
    "confirm_email": "1/3m/key",
    "reset_password": "20/m/ip,5/m/key",
    "reset_password_from_key": "20/m/ip",
    "change_password": "5/m/user",
}
# The site's name wherever allauth names the site: e-mail subjects and greetings
# (accounts.adapters), and the issuer an authenticator app shows beside the code.
SITE_NAME = os.environ.get("SITE_NAME", "Pan online")
MFA_SUPPORTED_TYPES = ["totp", "recovery_codes"]
MFA_TOTP_ISSUER = SITE_NAME
# allauth takes the client's address from REMOTE_ADDR, which pan_site.proxy has already
# set from X-Forwarded-For where the peer is a trusted proxy: it must not read the header.
ALLAUTH_TRUSTED_PROXY_COUNT = 0

# --- E-mail -------------------------------------------------------------------------
# The site's name opens every e-mail subject. Without it allauth would name the host the
# request came to (no django.contrib.sites here), such as "[127.0.0.1:8101]".
EMAIL_SUBJECT_PREFIX = f"[{SITE_NAME}] "
# Where the site is reached from outside: the links of e-mails sent with no request at hand.
# Unset, the address `make run` serves, which hands its HOST and PORT to every process
# it starts (the Procfile's web process listens on them too).
SITE_URL = (
    os.environ.get("SITE_URL")
    or f"http://{os.environ.get('HOST') or '127.0.0.1'}:{os.environ.get('PORT') or '8000'}"
).rstrip("/")
ACCOUNT_EMAIL_SUBJECT_PREFIX = EMAIL_SUBJECT_PREFIX
EMAIL_HOST = os.environ.get("EMAIL_HOST", "")
DEFAULT_FROM_EMAIL = os.environ.get("DEFAULT_FROM_EMAIL", f"{SITE_NAME} <noreply@localhost>")
SERVER_EMAIL = DEFAULT_FROM_EMAIL
EMAIL_FILE_PATH = VAR_DIR / "mail"
if EMAIL_HOST:
    EMAIL_BACKEND = "django.core.mail.backends.smtp.EmailBackend"
    EMAIL_PORT = int(os.environ.get("EMAIL_PORT", "587"))
    EMAIL_HOST_USER = os.environ.get("EMAIL_HOST_USER", "")
    EMAIL_HOST_PASSWORD = os.environ.get("EMAIL_HOST_PASSWORD", "")
    EMAIL_USE_TLS = env_bool("EMAIL_USE_TLS", True)
else:
    # Development: every message goes to the console and to a file under var/mail/.
    EMAIL_BACKEND = "pan_site.mail.DevelopmentEmailBackend"

# --- Web Push (notifications.push) ---------------------------------------------------
# The site's VAPID key pair (RFC 8292): its private key signs each push, and browsers
# subscribe with its public key. From VAPID_PRIVATE_KEY (a PEM, or the raw key in
# base64url), else the file `make run` writes under var/ (manage.py vapid_keys); with
# neither, the site sends no push and the settings page says so.
VAPID_KEY_FILE = VAR_DIR / "vapid_private.pem"


def _vapid_private_key() -> str:
    key = os.environ.get("VAPID_PRIVATE_KEY", "").strip()
    if not key and VAPID_KEY_FILE.exists():
        key = VAPID_KEY_FILE.read_text().strip()
    return key


VAPID_PRIVATE_KEY = _vapid_private_key()
# Who runs the site, as the push services ask (the JWT's "sub": a mailto: or https: URL).
VAPID_SUBJECT = os.environ.get("VAPID_SUBJECT", "") or (
    "mailto:" + (parseaddr(DEFAULT_FROM_EMAIL)[1] or "noreply@localhost")
)

# --- i18n ---------------------------------------------------------------------------
LANGUAGE_CODE = "pl"
LANGUAGES = [("pl", _("Polish")), ("en", _("English"))]
LOCALE_PATHS = [BASE_DIR / "locale"]
TIME_ZONE = "Europe/Warsaw"
USE_I18N = True
USE_TZ = True

# --- Static files -----------------------------------------------------------------
STATIC_URL = "/static/"
STATIC_ROOT = VAR_DIR / "static"
STATICFILES_DIRS = [BASE_DIR / "static"]
STORAGES = {
    "default": {"BACKEND": "django.core.files.storage.FileSystemStorage"},
    "staticfiles": {
        "BACKEND": (
            "django.contrib.staticfiles.storage.StaticFilesStorage"
            if DEBUG
            else "whitenoise.storage.CompressedManifestStaticFilesStorage"
        )
    },
}
WHITENOISE_USE_FINDERS = DEBUG
WHITENOISE_AUTOREFRESH = DEBUG

# --- Sessions and logging ------------------------------------------------------------
# How often a daphne asks whether its collector's complete pass is due (core.collector):
# shorter in a bench that wants to see it within minutes.
GC_FULL_EVERY = float(os.environ.get("GC_FULL_EVERY", "600"))
# The daphnes behind nginx's upstream, as its server lines name them (host:port): each
# watches the others and, once all listen again after a restart, hands the tables nginx
# now sends elsewhere over to them (pan_site.spread). Empty: a daphne alone, nothing to do.
DAPHNE_UPSTREAMS = env_list("DAPHNE_UPSTREAMS")
SESSION_ENGINE = "django.contrib.sessions.backends.db"
SESSION_COOKIE_AGE = 60 * 60 * 24 * 30
# The debug page and error e-mails mask a token sent in the query string.
DEFAULT_EXCEPTION_REPORTER = "pan_site.redaction.RedactingExceptionReporter"

LOGGING = {
    "version": 1,
    "disable_existing_loggers": False,
    "formatters": {"plain": {"format": "%(asctime)s %(levelname)s %(name)s: %(message)s"}},
    "handlers": {"console": {"class": "logging.StreamHandler", "formatter": "plain"}},
    "root": {"handlers": ["console"], "level": os.environ.get("LOG_LEVEL", "INFO")},
    "loggers": {
        "django.channels.server": {"level": "WARNING"},
        "daphne": {"level": "WARNING"},
    },
}

if not DEBUG and SECRET_KEY.startswith("django-insecure"):
    raise ImproperlyConfigured("Set a real SECRET_KEY when DEBUG is off.")
