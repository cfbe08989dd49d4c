from tests.test_settings_profiles import PRODUCTION, manage


def test_check_deploy_warns_of_private_webhook_targets(tmp_path):
    result = manage(
        "check", "--deploy", tmp_path=tmp_path, **PRODUCTION, WEBHOOK_ALLOW_PRIVATE_TARGETS="1"
    )

    assert result.returncode == 0  # a warning: the operator may mean it
    assert "webhooks.W001" in result.stderr
    assert "WEBHOOK_ALLOW_PRIVATE_TARGETS is on" in result.stderr
