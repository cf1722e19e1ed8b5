"""Review grids, under a matter."""

from __future__ import annotations

from django.urls import path

from legalnav.review import playbook_views, views

G = "matters/<int:matter_id>/grids/<int:grid_id>/"

urlpatterns = [
    path("matters/<int:matter_id>/grids/", views.grid_list, name="grid-list"),
    path("matters/<int:matter_id>/grids/new/", views.grid_new, name="grid-new"),
    path("matters/<int:matter_id>/grids/columns/", views.saved_column_add, name="grid-column-add"),
    path(G, views.grid_detail, name="grid-detail"),
    path(G + "cancel/", views.grid_cancel, name="grid-cancel"),
    path(G + "resume/", views.grid_retry, name="grid-retry"),
    path(G + "cells/<int:cell_id>/", views.cell_detail, name="grid-cell"),
    path(G + "cells/<int:cell_id>/review/", views.cell_review, name="grid-cell-review"),
    path(
        G + "columns/<int:column_id>/confirm/",
        views.grid_column_confirm,
        name="grid-column-confirm",
    ),
    path(G + "export.<str:fmt>", views.grid_export, name="grid-export"),
    # Playbooks: the firm's (outside any matter), and their runs in a matter.
    path("playbooks/", playbook_views.playbook_list, name="playbook-list"),
    path("playbooks/new/", playbook_views.playbook_edit, name="playbook-new"),
    path("playbooks/<int:playbook_id>/", playbook_views.playbook_detail, name="playbook-detail"),
    path("playbooks/<int:playbook_id>/edit/", playbook_views.playbook_edit, name="playbook-edit"),
    path(
        "matters/<int:matter_id>/playbooks/",
        playbook_views.matter_playbooks,
        name="matter-playbooks",
    ),
    path(
        "matters/<int:matter_id>/playbooks/runs/<int:run_id>/",
        playbook_views.run_detail,
        name="playbook-run",
    ),
]
