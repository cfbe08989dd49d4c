from django.db import migrations, models


class Migration(migrations.Migration):
    dependencies = [("webhooks", "0001_webhooks")]

    operations = [
        migrations.RenameField("webhookendpoint", "disabled_on", "paused_on"),
        migrations.AlterField(
            model_name="webhookendpoint",
            name="paused_on",
            field=models.DateTimeField(blank=True, null=True, verbose_name="paused since"),
        ),
        migrations.AddField(
            model_name="webhookendpoint",
            name="pause_reason",
            field=models.CharField(
                blank=True, default="", max_length=500, verbose_name="paused because"
            ),
        ),
        migrations.AddField(
            model_name="webhookendpoint",
            name="failures",
            field=models.PositiveIntegerField(default=0, verbose_name="failed attempts in a row"),
        ),
        migrations.AddField(
            model_name="webhookendpoint",
            name="backoff_until",
            field=models.DateTimeField(blank=True, null=True, verbose_name="next attempt"),
        ),
    ]
