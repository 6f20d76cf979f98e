from django.db import migrations, models


class Migration(migrations.Migration):
    dependencies = [
        ("games", "0006_hand_live_deadline"),
    ]

    operations = [
        migrations.AddField(
            model_name="table",
            name="managed",
            field=models.BooleanField(default=False, verbose_name="managed by a tournament"),
        ),
    ]
