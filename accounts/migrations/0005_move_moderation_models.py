"""AuditLog and Report move to the moderation app (#13): here they leave the state only.

Their tables stay as they are (``accounts_auditlog``, ``accounts_report``); the migration
moderation 0001 takes them over, and moves their content types so that the permissions
given to groups (Moderators) keep working.
"""

from django.db import migrations


class Migration(migrations.Migration):
    dependencies = [
        ("accounts", "0004_moderators_permissions"),
    ]

    operations = [
        migrations.SeparateDatabaseAndState(
            state_operations=[
                migrations.DeleteModel(name="AuditLog"),
                migrations.DeleteModel(name="Report"),
            ],
            database_operations=[],
        ),
    ]
