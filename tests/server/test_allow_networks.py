from __future__ import annotations

import pytest

from renderkit import ConfigurationError
from renderkit_server.services import browser_config
from renderkit_server.settings import Settings


def test_allow_networks_is_read_as_a_list_of_ranges_and_reaches_the_browser_policy() -> None:
    settings = Settings.from_env({"RENDERKIT_ALLOW_NETWORKS": "127.0.0.1/32, 10.1.0.0/16"})
    assert settings.allow_networks == ("127.0.0.1/32", "10.1.0.0/16")
    config = browser_config(settings)
    assert config.allow_networks == ("127.0.0.1/32", "10.1.0.0/16")
    assert config.allow_private_network is False


def test_an_allow_networks_entry_that_is_no_range_stops_the_server_at_startup() -> None:
    with pytest.raises(ConfigurationError):
        Settings.from_env({"RENDERKIT_ALLOW_NETWORKS": "localhost"})
