"""The tables a tournament already uses become managed (games.Table.managed), so games
knows them without asking tournaments."""

from django.db import migrations


def mark(apps, schema_editor):
    Table = apps.get_model("games", "Table")
    Table.objects.filter(tournament_table__isnull=False).update(managed=True)


def unmark(apps, schema_editor):
    Table = apps.get_model("games", "Table")
    Table.objects.filter(managed=True).update(managed=False)


class Migration(migrations.Migration):
    dependencies = [
        ("games", "0007_table_managed"),
        ("tournaments", "0001_initial"),
    ]

    operations = [migrations.RunPython(mark, unmark)]
