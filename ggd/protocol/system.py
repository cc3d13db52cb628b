"""gg/system.* and gg/workspace.* params and results."""

from __future__ import annotations

from pydantic import Field

from .base import Params, Result, WireModel
from .dto import ChannelStatus, DegradedProvider, WorkspaceRef


class ToolGroupInfo(WireModel):
    """Deferrable tools declared or deferred together (an MCP server's, a capability's)."""

    name: str
    tools: int
    tokens: int = Field(description="estimated tokens of the group's declarations")
    deferred: bool = Field(description="loaded with tool_search; false: declared up front")


class ToolDeclarations(WireModel):
    """How a model's runs declare deferrable tools (docs/agent.md "Deferred tools")."""

    budget_tokens: int | None = Field(
        default=None,
        description="tokens of declarations sent up front (toolDeclarationShare of the context "
        "window); null: the window is unknown, so every group is deferred",
    )
    groups: list[ToolGroupInfo] | None = Field(
        default=None, description="the last run of this model in this workspace; null before one"
    )


class SystemInfoResult(Result):
    """What this daemon is and can do."""

    protocol_version: str
    server_version: str
    capabilities: list[str]
    degraded_providers: list[DegradedProvider] | None = None
    channels: list[ChannelStatus] = []
    workspace: WorkspaceRef
    demo: bool = False
    models: list[str] = []
    default_model: str | None = None
    # Models whose provider runs a server of its own (kind "llamacpp"): "provider:model" ->
    # "stopped", "starting", "ready" or "failed: <reason>". Absent when there are none.
    model_states: dict[str, str] | None = None
    # Per model ("provider:model"): which deferrable tools go up front and which are deferred.
    tool_declarations: dict[str, ToolDeclarations] | None = None


class ProviderStatus(WireModel):
    """One configured provider: its wire kind, whether it answers, and its models."""

    name: str
    # openai (Chat Completions), openai-responses, anthropic, gemini, llamacpp or demo.
    kind: str
    base_url: str | None = None
    # None when it was not asked (a local server that is not running is not started for this).
    reachable: bool | None = None
    problem: str | None = None
    # Its "provider:model" references gg knows (configured, or the default).
    models: list[str] = []
    # How many models the endpoint's own listing offers, when it lists any.
    listed: int | None = None


class ProvidersResult(Result):
    """Every configured provider, each asked once (a listing request, 5 s at most)."""

    providers: list[ProviderStatus]
    default_model: str


class WorkspaceListResult(Result):
    """Workspaces this daemon serves."""

    workspaces: list[WorkspaceRef]


class ModelCheckParams(Params):
    """A model reference to check: provider:model, or a bare model of the default provider."""

    model: str = Field(min_length=1, max_length=200)


class ModelCheckResult(Result):
    """Whether a run could use the model; the problem when it could not."""

    ok: bool
    problem: str | None = None


class WorkspaceOpenParams(Params):
    """An absolute folder on the daemon's machine (a leading ~ is the user's home)."""

    root: str = Field(min_length=1, max_length=4096)


class MediaGetParams(Params):
    """A stored media item by its opaque id."""

    media_id: str = Field(min_length=1, max_length=64)


class ImageGetParams(Params):
    """A stored image by id (a message's `images[].id`)."""

    image_id: str = Field(min_length=1, max_length=80)


class ImageGetResult(Result):
    """A stored image: its MIME type, size and base64 content."""

    image_id: str
    mime_type: str
    size: int
    data: str


class MediaGetResult(Result):
    """A media item: its MIME type, size and base64 content."""

    media_id: str
    mime: str
    size: int
    source: str
    data: str
