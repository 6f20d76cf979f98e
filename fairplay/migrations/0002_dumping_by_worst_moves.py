"""Dumping is counted from the moves worst for the player himself (fair play's signals):
the sums of the old statistic (costly moves in lost hands) mean something else, so they
start again from zero."""

from django.db import migrations, models


def forget_old_dumping(apps, schema_editor):
    PairSignals = apps.get_model("fairplay", "PairSignals")
    PairSignals.objects.update(dumps=0, dump_expected=0.0, dump_variance=0.0)


class Migration(migrations.Migration):
    dependencies = [("fairplay", "0001_initial")]

    operations = [
        migrations.RenameField("pairsignals", "dump_squares", "dump_variance"),
        migrations.RunPython(forget_old_dumping, migrations.RunPython.noop),
        migrations.AlterField(
            model_name="fairplaymoment",
            name="kind",
            field=models.CharField(
                choices=[
                    ("assistance", "the strong bot's move"),
                    ("feeding", "help to the other player"),
                    ("knowledge", "explained by the other's hand"),
                    ("dumping", "a costly move, among his worst"),
                ],
                max_length=16,
            ),
        ),
    ]
