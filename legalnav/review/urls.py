"""Review grids, under a matter."""

from __future__ import annotations

from django.urls import path

from legalnav.review import views

G = "matters/<int:matter_id>/grids/<int:grid_id>/"

urlpatterns = [
    path("matters/<int:matter_id>/grids/", views.grid_list, name="grid-list"),
    path("matters/<int:matter_id>/grids/new/", views.grid_new, name="grid-new"),
    path("matters/<int:matter_id>/grids/columns/", views.saved_column_add, name="grid-column-add"),
    path(G, views.grid_detail, name="grid-detail"),
    path(G + "cancel/", views.grid_cancel, name="grid-cancel"),
    path(G + "resume/", views.grid_resume, name="grid-resume"),
    path(G + "cells/<int:cell_id>/", views.cell_detail, name="grid-cell"),
    path(G + "cells/<int:cell_id>/review/", views.cell_review, name="grid-cell-review"),
    path(
        G + "columns/<int:column_id>/confirm/",
        views.grid_column_confirm,
        name="grid-column-confirm",
    ),
    path(G + "export.<str:fmt>", views.grid_export, name="grid-export"),
]
