from django.db import migrations, models

import leaderboard.models.benchmarks


class Migration(migrations.Migration):
    """Split.cache_token: the version of everything a split's pages show (kept in the database,
    so a cache that was unreachable during a change can never serve the old pages afterwards)."""

    dependencies = [("leaderboard", "0005_entries")]

    operations = [
        migrations.AddField(
            model_name="split",
            name="cache_token",
            field=models.CharField(default=leaderboard.models.benchmarks.new_cache_token, editable=False,
                                   max_length=32),
        ),
    ]
