"""The plan table, operator overrides, and the calendar of periods."""

from __future__ import annotations

import datetime

import attrs
import pytest
from hypothesis import given
from hypothesis import strategies as st

from renderkit import ConfigurationError
from renderkit_server.quotas import (
    PlanLimits,
    default_plans,
    month_period,
    next_month_start,
    plans_from_mapping,
)

UTC = datetime.UTC


def test_default_plans_follow_the_decisions_table() -> None:
    plans = default_plans()

    assert list(plans) == ["starter", "pro", "business", "vip"]
    assert plans["starter"] == PlanLimits(
        images=5_000,
        pdfs=500,
        audio_minutes=60,
        audio_characters=10_000,
        screenshots=1_000,
        parses=500,
        burst_per_minute=10,
        browser_inflight=1,
        browser_weight=1,
        browser_slot_share=34,
        browser_queue_share=25,
        failed_work_seconds=120,
        jobs_active=100,
        batch_size=100,
    )
    assert [plans[name].jobs_active for name in plans] == [100, 1_000, 5_000, None]
    assert [plans[name].browser_inflight for name in plans] == [1, 2, 4, None]
    assert plans["pro"].audio_characters == 100_000
    assert plans["pro"].burst_per_minute == 60
    assert plans["business"].audio_minutes == 1_200
    assert plans["business"].burst_per_minute == 120
    settings = {"browser_weight", "failed_work_window"}  # no "unlimited" for these
    limits = [f.name for f in attrs.fields(PlanLimits) if f.name not in settings]
    assert all(getattr(plans["vip"], name) is None for name in limits)


def test_paying_plans_weigh_more_and_only_the_self_service_plan_is_confined() -> None:
    plans = default_plans()

    weights = [plans[name].browser_weight for name in plans]
    assert weights == sorted(weights) and len(set(weights)) == 4
    assert plans["starter"].browser_slot_share == 34  # at most a third of the slots
    assert [plans[n].browser_slot_share for n in ("pro", "business", "vip")] == [None] * 3
    assert [plans[n].browser_queue_share for n in ("pro", "business", "vip")] == [None] * 3
    budgets = [plans[name].failed_work_seconds for name in plans]
    assert budgets[:3] == sorted(budgets[:3]) and budgets[3] is None


def test_plan_class_settings_can_be_overridden_and_are_checked() -> None:
    plans = plans_from_mapping(
        {"starter": {"browser_weight": 2, "browser_slot_share": 50, "failed_work_seconds": 30}}
    )
    assert plans["starter"].browser_weight == 2
    assert plans["starter"].browser_slot_share == 50
    assert plans["starter"].failed_work_seconds == 30
    for bad in (
        {"browser_weight": 0},
        {"browser_weight": "unlimited"},
        {"browser_slot_share": 101},
        {"browser_slot_share": 0},
        {"failed_work_window": 0},
    ):
        with pytest.raises(ConfigurationError, match=r"starter\.(browser|failed)_"):
            plans_from_mapping({"starter": bad})


def test_plan_overrides_replace_only_the_named_limits() -> None:
    plans = plans_from_mapping(
        {"starter": {"images": 100, "burst_per_minute": 5, "parses": "unlimited"}}
    )

    assert plans["starter"].images == 100
    assert plans["starter"].burst_per_minute == 5
    assert plans["starter"].parses is None
    assert plans["starter"].pdfs == 500
    assert plans["pro"] == default_plans()["pro"]


def test_plan_overrides_can_start_from_another_table() -> None:
    base = {"starter": PlanLimits(images=1)}

    plans = plans_from_mapping({"starter": {"pdfs": 2}}, base=base)

    assert plans == {"starter": PlanLimits(images=1, pdfs=2)}


@pytest.mark.parametrize(
    "overrides",
    [
        {"basic": {"images": 1}},
        {"starter": {"videos": 1}},
        {"starter": {"images": -1}},
        {"starter": {"images": True}},
        {"starter": {"images": "lots"}},
        {"starter": {"images": 1.5}},
        {"starter": 5},
    ],
)
def test_invalid_plan_overrides_raise_configuration_error(overrides: dict[str, object]) -> None:
    with pytest.raises(ConfigurationError):
        plans_from_mapping(overrides)


def test_plan_limits_reject_negative_values() -> None:
    with pytest.raises(ConfigurationError):
        PlanLimits(images=-1)


# Periods.


@pytest.mark.parametrize(
    ("now", "period", "reset"),
    [
        (datetime.datetime(2026, 11, 30, 23, 59, 59, tzinfo=UTC), "2026-11", (2026, 12, 1)),
        (datetime.datetime(2026, 12, 31, 12, tzinfo=UTC), "2026-12", (2027, 1, 1)),
        (datetime.datetime(2027, 1, 1, tzinfo=UTC), "2027-01", (2027, 2, 1)),
        # 01:30 in UTC+02:00 is still the previous day, and month, in UTC.
        (
            datetime.datetime(
                2026, 12, 1, 1, 30, tzinfo=datetime.timezone(datetime.timedelta(hours=2))
            ),
            "2026-11",
            (2026, 12, 1),
        ),
    ],
)
def test_periods_are_utc_calendar_months(
    now: datetime.datetime, period: str, reset: tuple[int, int, int]
) -> None:
    assert month_period(now) == period
    assert next_month_start(now) == datetime.datetime(*reset, tzinfo=UTC)


# Year 9999's December has no next month in Python.
@given(st.datetimes(max_value=datetime.datetime(9999, 11, 30), timezones=st.just(UTC)))
def test_next_month_start_is_the_first_instant_of_the_following_period(
    now: datetime.datetime,
) -> None:
    reset = next_month_start(now)

    assert now < reset <= now + datetime.timedelta(days=31)
    assert (reset.day, reset.hour, reset.minute, reset.second) == (1, 0, 0, 0)
    assert month_period(reset) != month_period(now)
    assert month_period(reset - datetime.timedelta(microseconds=1)) == month_period(now)
