"""Asking, answers, history, comparison and memos, under a matter."""

from __future__ import annotations

from django.urls import path

from legalnav.answers import views

urlpatterns = [
    path("matters/<int:matter_id>/ask/", views.matter_ask, name="matter-ask"),
    path("spend/", views.spend_overview, name="spend-overview"),
    path("matters/<int:matter_id>/history/", views.matter_history, name="matter-history"),
    path("matters/<int:matter_id>/compare/", views.answer_compare, name="answer-compare"),
    path(
        "matters/<int:matter_id>/questions/<int:query_id>/",
        views.answer_detail,
        name="answer-detail",
    ),
    path(
        "matters/<int:matter_id>/questions/<int:query_id>/retry/",
        views.answer_retry,
        name="answer-retry",
    ),
    path(
        "matters/<int:matter_id>/questions/<int:query_id>/cancel/",
        views.answer_cancel,
        name="answer-cancel",
    ),
    path(
        "matters/<int:matter_id>/questions/<int:query_id>/citations/<int:citation_id>/",
        views.answer_citation,
        name="answer-citation",
    ),
    path(
        "matters/<int:matter_id>/questions/<int:query_id>/memo.pdf",
        views.answer_memo,
        name="answer-memo",
    ),
]
