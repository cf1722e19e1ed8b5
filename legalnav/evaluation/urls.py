"""Evaluation runs: list, one run, runs side by side, a question's drill-down."""

from __future__ import annotations

from django.urls import path

from legalnav.evaluation import views

urlpatterns = [
    path("evaluation/", views.run_list, name="evaluation-list"),
    path("evaluation/compare/", views.run_compare, name="evaluation-compare"),
    path("evaluation/runs/<int:run_id>/", views.run_detail, name="evaluation-run"),
    path("evaluation/runs/<int:run_id>/question/", views.run_item, name="evaluation-item"),
    path("evaluation/runs/<int:run_id>/retry/", views.run_retry, name="evaluation-retry"),
    path("evaluation/runs/<int:run_id>/cancel/", views.run_cancel, name="evaluation-cancel"),
]
