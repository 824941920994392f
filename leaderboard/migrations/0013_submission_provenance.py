from django.db import migrations, models


class Migration(migrations.Migration):

    dependencies = [
        ('leaderboard', '0012_progress_and_end_mail'),
    ]

    operations = [
        migrations.AddField(
            model_name='submission',
            name='provenance',
            field=models.CharField(choices=[('submitted', 'Submitted'), ('released', 'Re-scored from released outputs')], default='submitted', max_length=16),
        ),
        migrations.AddField(
            model_name='submission',
            name='source',
            field=models.JSONField(blank=True, default=dict, help_text="Released outputs: the release (publisher, repository, commit, path, url, licence), the released file's SHA-256, the items it answers and what reading it found."),
        ),
    ]
