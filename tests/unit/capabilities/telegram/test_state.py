"""The persisted offset and chat sessions: owner-only, monotonic offset, /new forgets."""

from __future__ import annotations

from pathlib import Path

from ggd.capabilities.telegram.state import TelegramState


def test_offset_and_sessions_survive_a_new_instance(tmp_path: Path) -> None:
    st = TelegramState(tmp_path)
    assert st.offset() == 0 and st.session(1) is None
    st.set_offset(7)
    st.set_offset(5)  # never goes back: an old batch cannot re-open acked updates
    st.set_session(1, "s_a")
    again = TelegramState(tmp_path)
    assert again.offset() == 7 and again.session(1) == "s_a"
    assert st.path.stat().st_mode & 0o777 == 0o600
    assert st.dir.stat().st_mode & 0o777 == 0o700
    again.set_session(1, None)
    assert st.session(1) is None


def test_a_corrupt_file_is_the_empty_state(tmp_path: Path) -> None:
    st = TelegramState(tmp_path)
    st.set_offset(3)
    st.path.write_text("{not json")
    assert st.offset() == 0
