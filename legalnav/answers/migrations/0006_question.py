# The model of a question asked of a matter is Question (it was Query), as the rest of the code
# says: the table, the matter's related name and the two one-to-one fields that point at it
# (Answer.question, ResearchRun.question) follow, and the index takes the name Django derives
# from the new table. Renames only; no data changes.

import django.db.models.deletion
from django.db import migrations, models


class Migration(migrations.Migration):
    dependencies = [
        ("answers", "0005_answer_scope"),
        # RenameModel renames the model's content type too, reading django_content_type through
        # the migration state here: that state must have the table without the name column
        # contenttypes 0002 removed, or reversing this migration fails.
        ("contenttypes", "0002_remove_content_type_name"),
    ]

    operations = [
        migrations.RenameModel(old_name="Query", new_name="Question"),
        migrations.RenameIndex(
            model_name="question",
            new_name="answers_que_matter__2890dc_idx",
            old_name="answers_que_matter__8f41fd_idx",
        ),
        migrations.AlterField(
            model_name="question",
            name="matter",
            field=models.ForeignKey(
                on_delete=django.db.models.deletion.CASCADE,
                related_name="questions",
                to="matters.matter",
            ),
        ),
        migrations.RenameField(model_name="answer", old_name="query", new_name="question"),
        migrations.RenameField(model_name="researchrun", old_name="query", new_name="question"),
    ]
