"""`initialize`, validated once: pydantic checks the fields gg reads, cattrs the client's capabilities.

Each part of the request is checked by one validator. The gate (`envelope.check`) validates the
top-level fields strictly here (`InitializeCheck`: a processId of "1" or true is refused, as LSP
types it); the `capabilities` tree, which gg reads only a few flags of, is structured into
lsprotocol's `ClientCapabilities` by pygls' converter. The typed `InitializeRequest` built from
both goes to pygls' `handle_message`: pygls never structures an `initialize` a second time.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any, Literal

from cattrs import BaseValidationError, Converter, transform_error
from lsprotocol import types as lsp
from pydantic import BaseModel, ConfigDict, StrictInt, StrictStr, ValidationError

from ggd.protocol import errors as E

_MAX_MESSAGE = 200


class _Strict(BaseModel):
    model_config = ConfigDict(strict=True, extra="allow", populate_by_name=True)


class _ClientInfo(_Strict):
    name: StrictStr
    version: StrictStr | None = None


class _Folder(_Strict):
    uri: StrictStr
    name: StrictStr


class InitializeCheck(_Strict):
    """The LSP initialize fields gg reads, strictly typed; the rest is the client's business."""

    processId: StrictInt | None = None  # LSP wire names
    rootUri: StrictStr | None = None
    rootPath: StrictStr | None = None
    capabilities: dict[str, Any]
    clientInfo: _ClientInfo | None = None
    workspaceFolders: list[_Folder] | None = None
    initializationOptions: Any = None
    trace: Literal["off", "messages", "verbose"] | None = None
    locale: StrictStr | None = None
    workDoneToken: StrictInt | StrictStr | None = None


def _invalid(loc: str, msg: str) -> E.InvalidParamsError:
    return E.InvalidParamsError(f"invalid params: {loc}: {msg}"[:_MAX_MESSAGE])


@dataclass(frozen=True)
class Handshake:
    """An `initialize` whose fields passed the gate; `request()` types it for pygls."""

    id: int | str
    fields: InitializeCheck

    @classmethod
    def check(cls, msg_id: int | str, params: object) -> Handshake:
        """Validate the params of `initialize` (InvalidParamsError naming the first bad field)."""
        if not isinstance(params, dict):
            raise E.InvalidParamsError("invalid params: params must be an object")
        try:
            return cls(msg_id, InitializeCheck.model_validate(params))
        except ValidationError as exc:
            first = exc.errors()[0]
            loc = ".".join(str(p) for p in first.get("loc", ())) or "params"
            raise _invalid(loc, first.get("msg", "invalid value")) from None

    def request(self, converter: Converter) -> lsp.InitializeRequest:
        """The typed request: the checked fields as they are, the capabilities structured."""
        f = self.fields
        try:
            caps = converter.structure(f.capabilities, lsp.ClientCapabilities)
        except BaseValidationError as exc:
            shown = transform_error(exc, path="capabilities")
            raise _invalid("capabilities", shown[0] if shown else "invalid value") from None
        except (TypeError, ValueError, KeyError) as exc:  # a hook outside cattrs' own errors
            raise _invalid("capabilities", type(exc).__name__) from None
        info = f.clientInfo
        params = lsp.InitializeParams(
            capabilities=caps,
            process_id=f.processId,
            client_info=lsp.ClientInfo(name=info.name, version=info.version) if info else None,
            locale=f.locale,
            root_path=f.rootPath,
            root_uri=f.rootUri,
            initialization_options=f.initializationOptions,
            trace=lsp.TraceValue(f.trace) if f.trace else None,
            work_done_token=f.workDoneToken,
            workspace_folders=(
                tuple(lsp.WorkspaceFolder(uri=w.uri, name=w.name) for w in f.workspaceFolders)
                if f.workspaceFolders is not None
                else None
            ),
        )
        return lsp.InitializeRequest(id=self.id, params=params)
