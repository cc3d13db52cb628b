"""gg adjusts pygls through its documented hooks only; an upgrade that moves them fails here.

`GgProtocol` is a `protocol_cls` whose `@lsp_method` overrides replace built-in features, and
pygls writes through the writer gg sets with `set_writer`. No private pygls member is overridden
or read (docs/internals.md, "Dependencies"): these tests pin the public names relied on.
"""

from __future__ import annotations

import inspect

from lsprotocol import types as lsp
from pygls.lsp.server import LanguageServer
from pygls.protocol import JsonRPCProtocol, LanguageServerProtocol

from ggd.rpc import GgProtocol, dispatch

OVERRIDES = {
    "lsp_exit": lsp.EXIT,
    "lsp_initialize": lsp.INITIALIZE,
    "lsp_shutdown": lsp.SHUTDOWN,
    "lsp_work_done_progress_cancel": lsp.WINDOW_WORK_DONE_PROGRESS_CANCEL,
}


def test_gg_overrides_only_public_members_of_pygls() -> None:
    own = {n for n in vars(GgProtocol) if not (n.startswith("__") and n.endswith("__"))}
    pygls_members = {n for cls in LanguageServerProtocol.__mro__ for n in vars(cls)}
    overridden = own & pygls_members
    assert overridden == set(OVERRIDES), overridden
    assert not any(n.startswith("_") for n in overridden)


def test_each_override_replaces_the_builtin_feature_pygls_dispatches() -> None:
    for name, method in OVERRIDES.items():
        base = getattr(LanguageServerProtocol, name)
        # pygls still marks its built-in with the same method name, so ours replaces it ...
        assert getattr(base, "method_name", None) == method, name
        assert inspect.isgeneratorfunction(base), name  # ... and `yield from super()` works
    server = LanguageServer("ggd", "0", protocol_cls=GgProtocol)
    features = server.protocol.fm.builtin_features
    for name, method in OVERRIDES.items():
        assert features[method].__func__ is getattr(GgProtocol, name), method


def test_the_public_protocol_surface_gg_calls_is_there() -> None:
    for name in ("structure_message", "handle_message", "set_writer", "notify"):
        assert callable(getattr(JsonRPCProtocol, name)), name
    assert "include_headers" in inspect.signature(JsonRPCProtocol.set_writer).parameters
    from pygls.server import JsonRPCServer

    # LanguageServer passes them on to JsonRPCServer (**kwargs)
    assert "protocol_cls" in inspect.signature(JsonRPCServer).parameters
    assert "converter_factory" in inspect.signature(JsonRPCServer).parameters


def test_no_private_pygls_name_is_used_in_the_rpc_layer() -> None:
    # The sources of the rpc layer's pygls module: no `._name` of pygls' protocol or server.
    src = inspect.getsource(dispatch)
    for private in (
        "_send_response",
        "_send_data",
        "_result_types",
        "_include_headers",
        "._shutdown",
    ):
        assert private not in src, private


def test_a_connection_registers_no_feature_per_gg_method() -> None:
    # The method table is the daemon's (built once); a connection's server gets the editor
    # commands and nothing per gg/* row (it was ~64 features on every connection).
    from ggd.rpc import Connection, bind

    server = LanguageServer("ggd", "0", protocol_cls=GgProtocol)
    dispatcher = bind(server, object(), Connection(transport="unix"))  # type: ignore[arg-type]
    fm = server.protocol.fm
    assert not [m for m in fm.features if m.startswith("gg/")]
    assert sorted(fm.commands) == ["gg.ask", "gg.askAboutSelection", "gg.cancel"]
    assert dispatcher.conn is server.protocol.conn  # type: ignore[attr-defined]
