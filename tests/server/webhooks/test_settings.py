"""The webhook settings from the environment, and the dispatcher they build."""

from __future__ import annotations

from pathlib import Path

import pytest

from renderkit import ConfigurationError
from renderkit_server.services import webhook_dispatcher
from renderkit_server.settings import Settings
from renderkit_server.state.build import build_shared_state

pytestmark = pytest.mark.anyio


def test_the_retry_schedule_and_limits_are_read_from_the_environment() -> None:
    settings = Settings.from_env(
        {
            "RENDERKIT_WEBHOOK_RETRY_SCHEDULE": "0, 1.5, 60",
            "RENDERKIT_WEBHOOK_TIMEOUT": "3",
            "RENDERKIT_WEBHOOK_MAX_PENDING": "7",
            "RENDERKIT_WEBHOOK_SECRET_GRACE_SECONDS": "600",
        }
    )
    assert settings.webhook_retry_schedule == (0.0, 1.5, 60.0)
    assert settings.webhook_timeout == 3.0
    assert settings.webhook_max_pending == 7
    assert settings.webhook_secret_grace_seconds == 600.0


@pytest.mark.parametrize("schedule", [",", "0,-5", "0,soon"])
def test_a_schedule_that_is_empty_negative_or_not_numbers_is_refused(schedule: str) -> None:
    with pytest.raises(ConfigurationError):
        Settings.from_env({"RENDERKIT_WEBHOOK_RETRY_SCHEDULE": schedule})


async def test_the_dispatcher_takes_the_settings_and_the_operators_egress_switches(
    tmp_path: Path,
) -> None:
    settings = Settings(
        data_dir=tmp_path,
        webhook_timeout=2.5,
        webhook_retry_schedule=(0.0, 1.0),
        allow_networks=("10.0.0.0/8",),
    )
    state = build_shared_state(settings)
    dispatcher = webhook_dispatcher(settings, state)
    try:
        assert dispatcher.config.timeout == 2.5
        assert dispatcher.config.schedule == (0.0, 1.0)
        assert dispatcher.policy.allow_networks == ("10.0.0.0/8",)
        assert not dispatcher.policy.allow_private
        assert dispatcher.outbox is state.webhook_outbox
    finally:
        await dispatcher.aclose()
        await state.aclose()
