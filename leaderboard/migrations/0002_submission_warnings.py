from django.db import migrations, models


class Migration(migrations.Migration):
    dependencies = [("leaderboard", "0001_initial")]

    operations = [
        migrations.AddField(
            model_name="submission",
            name="warnings",
            field=models.JSONField(blank=True, default=list, help_text="First warnings: scored, but worth knowing."),
        ),
        migrations.AddField(
            model_name="submission",
            name="warning_counts",
            field=models.JSONField(blank=True, default=dict),
        ),
    ]
