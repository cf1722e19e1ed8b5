from __future__ import annotations

from django.apps import AppConfig


class BenchConfig(AppConfig):
    """The benchmarks: no models, only the ``bench*`` management commands and their modules. The
    top layer below ``urls``, so a benchmark may time any app's code."""

    name = "legalnav.bench"
    label = "bench"
    verbose_name = "Benchmarks"
