"""A table its owner did not name, and a bot of the site, are named in each reader's
language when shown (``Table.title``, ``MatchPlayer.name``): their stored names become
blank. The names stored before in one language (English or Polish) are blanked too."""

from django.db import migrations, models
from django.db.models import F, Q, Value
from django.db.models.functions import Concat

# The default table names as they were stored, in English and in Polish.
DEFAULT_TABLE_NAMES = (("", "'s table"), ("Stół gracza ", ""))
# The bot levels' names as they were stored ("Bot: greedy", "Bot: zachłanny", ...); a
# tournament's bots are "Bot 1", "Bot 2" and keep their names.
BOT_NAME_PREFIX = "Bot: "
ENGLISH_BOT_NAMES = {
    "random": "Bot: random",
    "greedy": "Bot: greedy",
    "ismcts": "Bot: strong (ISMCTS, 500 playouts)",
}


def blank_language_names(apps, schema_editor):
    Table = apps.get_model("games", "Table")
    MatchPlayer = apps.get_model("games", "MatchPlayer")
    defaults = Q()
    for before, after in DEFAULT_TABLE_NAMES:
        defaults |= Q(name=Concat(Value(before), F("owner__username"), Value(after)))
    Table.objects.filter(defaults).update(name="")
    bots = MatchPlayer.objects.filter(user__isnull=True).exclude(bot_level="")
    bots.filter(display_name__startswith=BOT_NAME_PREFIX).update(display_name="")


def name_in_english(apps, schema_editor):
    Table = apps.get_model("games", "Table")
    MatchPlayer = apps.get_model("games", "MatchPlayer")
    for table in Table.objects.filter(name="").select_related("owner"):
        table.name = f"{table.owner.username}'s table"[:60]
        table.save(update_fields=["name"])
    for level, name in ENGLISH_BOT_NAMES.items():
        MatchPlayer.objects.filter(display_name="", bot_level=level).update(display_name=name)


class Migration(migrations.Migration):
    dependencies = [
        ("games", "0010_fewer_indexes_per_move"),
    ]

    operations = [
        migrations.AlterField(
            model_name="table",
            name="name",
            field=models.CharField(blank=True, max_length=60, verbose_name="name"),
        ),
        migrations.AlterField(
            model_name="matchplayer",
            name="display_name",
            field=models.CharField(blank=True, max_length=150),
        ),
        migrations.RunPython(blank_language_names, name_in_english),
    ]
