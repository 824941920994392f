from django.db import migrations, models


def mark_demo_loader_entries(apps, schema_editor):  # type: ignore[no-untyped-def]
    # Entries the demo loader made before the flag existed: its user on its splits.
    Submission = apps.get_model("leaderboard", "Submission")
    Submission.objects.filter(user__username="demo-bot", split__demo=True).update(demo=True)


class Migration(migrations.Migration):
    dependencies = [("leaderboard", "0003_security")]

    operations = [
        migrations.AddField(
            model_name="submission",
            name="demo",
            field=models.BooleanField(default=False, help_text="Made by the site's demo loader, not by a user."),
        ),
        migrations.RunPython(mark_demo_loader_entries, migrations.RunPython.noop),
    ]
