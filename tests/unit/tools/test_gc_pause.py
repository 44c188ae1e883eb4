"""The collector is held during index loads and resumes as it was."""

from __future__ import annotations

import gc
import threading
from collections.abc import Iterator

import pytest

from tools.gc_pause import gc_paused


@pytest.fixture(autouse=True)
def collector_on() -> Iterator[None]:
    was = gc.isenabled()
    gc.enable()
    yield
    if not was:
        gc.disable()


def test_the_collector_is_off_inside_and_back_on_after() -> None:
    with gc_paused():
        assert not gc.isenabled()
    assert gc.isenabled()


def test_nested_holds_resume_only_after_the_outermost() -> None:
    with gc_paused():
        with gc_paused():
            assert not gc.isenabled()
        assert not gc.isenabled()
    assert gc.isenabled()


def test_an_error_inside_still_resumes_the_collector() -> None:
    with pytest.raises(ValueError), gc_paused():
        raise ValueError("load failed")
    assert gc.isenabled()


def test_a_collector_the_process_turned_off_stays_off() -> None:
    gc.disable()
    with gc_paused():
        pass
    assert not gc.isenabled()


def test_overlapping_holds_on_threads_resume_when_the_last_ends() -> None:
    inside, release = threading.Event(), threading.Event()

    def hold() -> None:
        with gc_paused():
            inside.set()
            release.wait(5)

    other = threading.Thread(target=hold)
    other.start()
    inside.wait(5)
    with gc_paused():
        pass
    assert not gc.isenabled()  # the other thread still loads
    release.set()
    other.join(5)
    assert gc.isenabled()
