"""InMemoryTranscript honours the latest summary's firstKeptId."""

from __future__ import annotations

from ggd.agent import InMemoryTranscript


async def test_context_starts_at_the_latest_first_kept_id() -> None:
    t = InMemoryTranscript()
    ids = [await t.append_message({"role": "user", "content": str(i)}) for i in range(5)]
    assert t.context().summary is None and len(t.context().messages) == 5
    await t.append_summary("s1", ids[2])
    await t.append_summary("s2", ids[3])
    ctx = t.context()
    assert ctx.summary == "s2"
    assert [eid for eid, _ in ctx.messages] == ids[3:]
    await t.append_usage({"totalTokens": 3})
    assert t.usages() == [{"totalTokens": 3}]
