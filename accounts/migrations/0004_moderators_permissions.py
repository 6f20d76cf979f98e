"""Give the Moderators group the permissions of moderation (reports, audit log, chat, tables).

Moderators may handle reports (view, change), read the audit log (view only: nobody may
change or delete it), read tables, matches and chat, hide chat messages and intervene
at tables. They get no add/change/delete of users, groups or permissions.
"""

from django.contrib.auth.management import create_permissions
from django.db import migrations

MODERATOR_PERMISSIONS = [
    ("accounts", "view_report"),
    ("accounts", "change_report"),
    ("accounts", "view_auditlog"),
    ("games", "view_table"),
    ("games", "intervene_table"),
    ("games", "view_match"),
    ("games", "view_matchplayer"),
    ("games", "view_chatmessage"),
    ("games", "hide_chatmessage"),
]


def add_permissions(apps, schema_editor):
    for app_config in apps.get_app_configs():
        app_config.models_module = True
        create_permissions(app_config, apps=apps, verbosity=0)
        app_config.models_module = None
    Group = apps.get_model("auth", "Group")
    Permission = apps.get_model("auth", "Permission")
    group, _ = Group.objects.get_or_create(name="Moderators")
    for app_label, codename in MODERATOR_PERMISSIONS:
        group.permissions.add(
            Permission.objects.get(content_type__app_label=app_label, codename=codename)
        )


def remove_permissions(apps, schema_editor):
    Group = apps.get_model("auth", "Group")
    Permission = apps.get_model("auth", "Permission")
    group = Group.objects.filter(name="Moderators").first()
    if group is None:
        return
    for app_label, codename in MODERATOR_PERMISSIONS:
        group.permissions.remove(
            *Permission.objects.filter(content_type__app_label=app_label, codename=codename)
        )


class Migration(migrations.Migration):
    dependencies = [
        ("accounts", "0003_moderation"),
        ("games", "0002_moderation_permissions"),
    ]

    operations = [migrations.RunPython(add_permissions, remove_permissions)]
