"""The audit log and the players' reports, moved here from accounts (#13) without touching
the data: the tables keep their names (``accounts_auditlog``, ``accounts_report``) and
their index, so this migration creates the models in the state only. Their content types
move from ``accounts`` to ``moderation``, so that the permissions groups hold (Moderators:
view and change reports, view the audit log) are the moderation models' permissions.
"""

import django.db.models.deletion
import django.utils.timezone
from django.conf import settings
from django.db import migrations, models

MOVED_MODELS = ("auditlog", "report")  # from accounts


def _move_content_types(apps, from_label, to_label):
    ContentType = apps.get_model("contenttypes", "ContentType")
    ContentType.objects.filter(app_label=from_label, model__in=MOVED_MODELS).update(
        app_label=to_label
    )


def content_types_to_moderation(apps, schema_editor):
    _move_content_types(apps, "accounts", "moderation")


def content_types_to_accounts(apps, schema_editor):
    _move_content_types(apps, "moderation", "accounts")


class Migration(migrations.Migration):

    initial = True

    dependencies = [
        ('accounts', '0005_move_moderation_models'),
        ('contenttypes', '0002_remove_content_type_name'),
        ('games', '0002_moderation_permissions'),
        migrations.swappable_dependency(settings.AUTH_USER_MODEL),
    ]

    operations = [
        migrations.SeparateDatabaseAndState(
            state_operations=[
                migrations.CreateModel(
                    name='AuditLog',
                    fields=[
                        ('id', models.BigAutoField(auto_created=True, primary_key=True, serialize=False, verbose_name='ID')),
                        ('action', models.CharField(choices=[('ban', 'ban'), ('unban', 'unban'), ('mute', 'mute'), ('unmute', 'unmute'), ('auto_mute', 'automatic mute for flooding'), ('logout_everywhere', 'log out everywhere'), ('report_resolve', 'report resolved'), ('report_dismiss', 'report dismissed'), ('chat_hide', 'chat message hidden'), ('chat_unhide', 'chat message shown again'), ('hand_abort', 'hand aborted'), ('match_annul', 'match annulled'), ('table_remove_player', 'player removed from a table'), ('tournament_disqualify', 'player disqualified from a tournament')], db_index=True, max_length=32, verbose_name='action')),
                        ('details', models.JSONField(blank=True, default=dict, verbose_name='details')),
                        ('reason', models.TextField(blank=True, verbose_name='reason')),
                        ('created_at', models.DateTimeField(db_index=True, default=django.utils.timezone.now, verbose_name='time')),
                        ('actor', models.ForeignKey(blank=True, help_text='Empty: the site itself (an automatic limit).', null=True, on_delete=django.db.models.deletion.SET_NULL, related_name='audit_actions', to=settings.AUTH_USER_MODEL, verbose_name='moderator')),
                        ('table', models.ForeignKey(blank=True, null=True, on_delete=django.db.models.deletion.SET_NULL, related_name='audit_entries', to='games.table', verbose_name='table')),
                        ('target_user', models.ForeignKey(blank=True, null=True, on_delete=django.db.models.deletion.SET_NULL, related_name='audit_entries', to=settings.AUTH_USER_MODEL, verbose_name='user')),
                    ],
                    options={
                        'verbose_name': 'audit log entry',
                        'verbose_name_plural': 'audit log',
                        'ordering': ['-created_at', '-pk'],
                        'db_table': 'accounts_auditlog',
                    },
                ),
                migrations.CreateModel(
                    name='Report',
                    fields=[
                        ('id', models.BigAutoField(auto_created=True, primary_key=True, serialize=False, verbose_name='ID')),
                        ('reason', models.CharField(choices=[('insults', 'insults'), ('spam', 'spam'), ('cheating', 'cheating or collusion'), ('stalling', 'stalling'), ('other', 'other')], max_length=16, verbose_name='reason')),
                        ('text', models.TextField(blank=True, max_length=1000, verbose_name='details')),
                        ('status', models.CharField(choices=[('open', 'open'), ('resolved', 'resolved'), ('dismissed', 'dismissed')], db_index=True, default='open', max_length=16, verbose_name='status')),
                        ('action_taken', models.TextField(blank=True, verbose_name='action taken')),
                        ('handled_at', models.DateTimeField(blank=True, null=True, verbose_name='handled at')),
                        ('reporter_notified_at', models.DateTimeField(blank=True, null=True)),
                        ('created_at', models.DateTimeField(auto_now_add=True, db_index=True, verbose_name='reported at')),
                        ('chat_message', models.ForeignKey(blank=True, null=True, on_delete=django.db.models.deletion.SET_NULL, related_name='reports', to='games.chatmessage', verbose_name='chat message')),
                        ('handled_by', models.ForeignKey(blank=True, null=True, on_delete=django.db.models.deletion.SET_NULL, related_name='reports_handled', to=settings.AUTH_USER_MODEL, verbose_name='handled by')),
                        ('reported_user', models.ForeignKey(on_delete=django.db.models.deletion.CASCADE, related_name='reports_received', to=settings.AUTH_USER_MODEL, verbose_name='reported player')),
                        ('reporter', models.ForeignKey(on_delete=django.db.models.deletion.CASCADE, related_name='reports_made', to=settings.AUTH_USER_MODEL, verbose_name='reported by')),
                        ('table', models.ForeignKey(blank=True, null=True, on_delete=django.db.models.deletion.SET_NULL, related_name='reports', to='games.table', verbose_name='table')),
                    ],
                    options={
                        'verbose_name': 'player report',
                        'verbose_name_plural': 'player reports',
                        'ordering': ['created_at', 'pk'],
                        'db_table': 'accounts_report',
                        'indexes': [models.Index(fields=['reporter', 'reporter_notified_at'], name='accounts_re_reporte_fe4889_idx')],
                    },
                ),
            ],
            database_operations=[],
        ),
        migrations.RunPython(content_types_to_moderation, content_types_to_accounts),
    ]
