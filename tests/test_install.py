"""What a machine gets installed: the apt list covers what `renderkit doctor` asks for, and
constraints.txt pins every dependency pyproject.toml names, within its range."""

from __future__ import annotations

import subprocess
import tomllib
from pathlib import Path

import pytest
from packaging.requirements import Requirement
from packaging.utils import canonicalize_name
from packaging.version import Version

from renderkit._doctor import run_checks

ROOT = Path(__file__).resolve().parents[1]
APT_INSTALL = "apt-get install -y "


def apt_packages(*sections: str) -> set[str]:
    script = ROOT / "deploy" / "apt-packages.sh"
    printed = subprocess.run(
        ["sh", str(script), *sections], capture_output=True, text=True, check=True
    ).stdout
    return set(printed.split())


def test_the_sections_of_the_apt_list_hold_distinct_packages() -> None:
    run, test, bootstrap = apt_packages("run"), apt_packages("test"), apt_packages("bootstrap")
    assert "chromium-headless-shell" in run and "python3-venv" in bootstrap
    assert {"redis-server", "chromium"} <= test  # the Browserless fleet's new-headless Chromium
    assert not (run & test) and not (run & bootstrap) and not (test & bootstrap)
    assert apt_packages("run", "test", "bootstrap") == run | test | bootstrap
    assert apt_packages() == set()


def test_every_package_doctor_asks_for_is_in_the_apt_list(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    run, everything = apt_packages("run"), apt_packages("run", "test", "bootstrap")
    # A machine with none of the tools and an fc-list that finds no font: every check fails
    # and names the Debian package that fixes it.
    fc_list = tmp_path / "fc-list"
    fc_list.write_text("#!/bin/sh\nexit 0\n")
    fc_list.chmod(0o755)
    monkeypatch.setenv("PATH", str(tmp_path))
    checks = run_checks(chromium=str(tmp_path / "no-chromium"), kokoro_dir=tmp_path)

    asked = {
        check.hint.partition(APT_INSTALL)[2]: check.required
        for check in checks
        if APT_INSTALL in check.hint
    }
    assert {"chromium-headless-shell", "fonts-noto-cjk", "espeak-ng"} <= set(asked)
    for package, required in asked.items():
        assert package in (run if required else everything), package


def _pins() -> dict[str, Version]:
    pins = {}
    for line in (ROOT / "constraints.txt").read_text().splitlines():
        name, sep, version = line.partition("==")
        if sep and not line.startswith((" ", "#")):
            pins[canonicalize_name(name)] = Version(version.split(";")[0].strip())
    return pins


def test_constraints_pin_every_dependency_of_every_extra_within_its_range() -> None:
    project = tomllib.loads((ROOT / "pyproject.toml").read_text())["project"]
    requirements = [Requirement(r) for r in project["dependencies"]]
    for extra in project["optional-dependencies"].values():
        requirements += [Requirement(r) for r in extra]
    pins = _pins()

    for requirement in requirements:
        name = canonicalize_name(requirement.name)
        if name == "renderkit":  # an extra naming other extras
            continue
        assert name in pins, f"{name} is not in constraints.txt: run nox -s constraints"
        assert requirement.specifier.contains(pins[name], prereleases=True), requirement
