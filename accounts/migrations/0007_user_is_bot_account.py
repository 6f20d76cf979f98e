from django.db import migrations, models


class Migration(migrations.Migration):
    dependencies = [
        ("accounts", "0006_user_sounds_on"),
    ]

    operations = [
        migrations.AddField(
            model_name="user",
            name="is_bot_account",
            field=models.BooleanField(default=False, verbose_name="bot account"),
        ),
    ]
