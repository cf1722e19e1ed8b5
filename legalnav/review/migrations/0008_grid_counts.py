# The counts above a grid's table, kept on the grid as it fills (models.GRID_COUNTS), counted
# here from the cells of every grid there is.

from django.db import migrations, models
from django.db.models import Count, Q

LOW_CONFIDENCE = 0.5  # models.LOW_CONFIDENCE when this was written


def recount(apps, schema_editor):
    Grid = apps.get_model("review", "Grid")
    Cell = apps.get_model("review", "Cell")
    counted = {
        row.pop("grid_id"): row
        for row in Cell.objects.order_by()
        .values("grid_id")
        .annotate(
            cells_done=Count("id"),
            n_found=Count("id", filter=Q(found=True)),
            n_not_found=Count("id", filter=Q(found=False)),
            n_low=Count("id", filter=Q(found=True, confidence__lt=LOW_CONFIDENCE)),
            n_reviewed=Count("id", filter=~Q(reviewed_status="none")),
        )
    }
    empty = dict.fromkeys(("cells_done", "n_found", "n_not_found", "n_low", "n_reviewed"), 0)
    for pk in list(Grid.objects.values_list("pk", flat=True)):
        Grid.objects.filter(pk=pk).update(**counted.get(pk, empty))


class Migration(migrations.Migration):
    dependencies = [
        ("review", "0007_grid_started"),
    ]

    operations = [
        migrations.AddField(
            model_name="grid",
            name="n_found",
            field=models.PositiveIntegerField(default=0),
        ),
        migrations.AddField(
            model_name="grid",
            name="n_not_found",
            field=models.PositiveIntegerField(default=0),
        ),
        migrations.AddField(
            model_name="grid",
            name="n_low",
            field=models.PositiveIntegerField(default=0),
        ),
        migrations.AddField(
            model_name="grid",
            name="n_reviewed",
            field=models.PositiveIntegerField(default=0),
        ),
        migrations.RunPython(recount, migrations.RunPython.noop),
    ]
