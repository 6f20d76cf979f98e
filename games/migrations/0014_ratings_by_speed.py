"""Ratings by speed: a player has one rating per speed, and each change says its speed.

The ratings of before (one per player, every speed together) are split by replaying the
rated matches, oldest first, each into its table's speed: the very rebuild
``games.ratings.ratings_recompute`` does, on this migration's models."""

import django.db.models.deletion
from django.conf import settings
from django.db import migrations, models

SPEEDS = [
    ("bullet", "bullet"),
    ("blitz", "blitz"),
    ("rapid", "rapid"),
    ("classical", "classical"),
    ("correspondence", "correspondence"),
]


def split_by_speed(apps, schema_editor):
    from games.ratings import RatingModels, ratings_recompute

    ratings_recompute(
        RatingModels(
            apps.get_model("games", "Match"),
            apps.get_model("games", "Rating"),
            apps.get_model("games", "RatingChange"),
        )
    )


def check_rows_now(apps, schema_editor):
    # PostgreSQL checks the foreign keys of the rows just written at commit; it refuses
    # to alter a table with such checks pending, as the constraint below does.
    if schema_editor.connection.vendor == "postgresql":
        schema_editor.execute("SET CONSTRAINTS ALL IMMEDIATE")


class Migration(migrations.Migration):
    dependencies = [
        # The split reads each table's time control, days per move included.
        ("games", "0013_correspondence_move_days"),
        # The split reads whether a player is a bot account.
        ("accounts", "0007_user_is_bot_account"),
        migrations.swappable_dependency(settings.AUTH_USER_MODEL),
    ]

    operations = [
        migrations.RemoveIndex(model_name="rating", name="rating_mu_desc"),
        migrations.AlterField(
            model_name="rating",
            name="user",
            field=models.ForeignKey(
                on_delete=django.db.models.deletion.CASCADE,
                related_name="ratings",
                to=settings.AUTH_USER_MODEL,
            ),
        ),
        # Blank until the split below gives every row its speed.
        migrations.AddField(
            model_name="rating",
            name="speed",
            field=models.CharField(choices=SPEEDS, default="", max_length=16),
            preserve_default=False,
        ),
        migrations.AddField(
            model_name="ratingchange",
            name="speed",
            field=models.CharField(choices=SPEEDS, default="", max_length=16),
            preserve_default=False,
        ),
        migrations.RunPython(split_by_speed, migrations.RunPython.noop),
        migrations.RunPython(check_rows_now, migrations.RunPython.noop),
        migrations.AddConstraint(
            model_name="rating",
            constraint=models.UniqueConstraint(
                fields=("user", "speed"), name="rating_one_per_speed"
            ),
        ),
        migrations.AddIndex(
            model_name="rating",
            index=models.Index(fields=["speed", "-mu"], name="rating_speed_mu_desc"),
        ),
    ]
