"""Request bodies of the Gmail API, with the API's own (camelCase) field names.

Unknown fields are refused, as Google refuses them ("Unknown name ... Cannot
find field."); read-only fields of a resource are accepted and ignored, and
hidden from the agents' tool schemas (`ReadOnly`) to keep those short.
"""

from __future__ import annotations

from typing import Annotated, Any, Literal

from pydantic import BaseModel, ConfigDict, Field
from pydantic.json_schema import SkipJsonSchema

from clawarena.tools.core import WireOnly

BASE = "/gmail/v1/users/{userId}"
UPLOAD = "/upload" + BASE
UserId = Annotated[str, WireOnly()]  # `me` or the caller's own address; hidden from agents
Media = Annotated[dict[str, Any] | None, WireOnly()]  # an uploaded message/rfc822 ({"mimeType", "data"})


ReadOnly = SkipJsonSchema  # accepted on the wire, left out of the agents' schema


class _Body(BaseModel):
    model_config = ConfigDict(extra="forbid", populate_by_name=True)


class MessageBody(_Body):
    """A Gmail Message resource as clients send it: `raw` is base64url RFC 2822."""

    raw: str | None = None
    threadId: str | None = None
    labelIds: list[str] | None = None
    id: ReadOnly[str | None] = None
    snippet: ReadOnly[str | None] = None
    historyId: ReadOnly[str | None] = None
    internalDate: ReadOnly[str | None] = None
    sizeEstimate: ReadOnly[int | None] = None
    payload: ReadOnly[dict[str, Any] | None] = None
    classificationLabelValues: ReadOnly[list[dict[str, Any]] | None] = None


class DraftBody(_Body):
    """A Draft: its id (for drafts.send of a stored draft) and its message."""

    id: str | None = None
    message: MessageBody | None = None


class ModifyBody(_Body):
    addLabelIds: list[str] = []
    removeLabelIds: list[str] = []
    addClassificationLabels: ReadOnly[list[dict[str, Any]]] = []
    removeClassificationLabelIds: ReadOnly[list[str]] = []


class ThreadModifyBody(_Body):
    addLabelIds: list[str] = []
    removeLabelIds: list[str] = []


class BatchModifyBody(ModifyBody):
    ids: list[str] = []


class BatchDeleteBody(_Body):
    ids: list[str] = []


class LabelColor(_Body):
    textColor: str | None = None
    backgroundColor: str | None = None


class LabelBody(_Body):
    id: ReadOnly[str | None] = None
    name: str | None = None
    messageListVisibility: Literal["show", "hide"] | None = None
    labelListVisibility: Literal["labelShow", "labelShowIfUnread", "labelHide"] | None = None
    type: ReadOnly[Literal["system", "user"] | None] = None
    color: LabelColor | None = None
    messagesTotal: ReadOnly[int | None] = None
    messagesUnread: ReadOnly[int | None] = None
    threadsTotal: ReadOnly[int | None] = None
    threadsUnread: ReadOnly[int | None] = None


class FilterCriteria(_Body):
    sender: str | None = Field(default=None, alias="from")
    to: str | None = None
    subject: str | None = None
    query: str | None = None
    negatedQuery: str | None = None
    hasAttachment: bool | None = None
    excludeChats: bool | None = None
    size: int | None = None
    sizeComparison: Literal["unspecified", "smaller", "larger"] | None = None


class FilterAction(_Body):
    addLabelIds: list[str] | None = None
    removeLabelIds: list[str] | None = None
    forward: str | None = None


class FilterBody(_Body):
    id: ReadOnly[str | None] = None
    criteria: FilterCriteria | None = None
    action: FilterAction | None = None


class SmtpMsa(_Body):
    host: str | None = None
    port: int | None = None
    username: str | None = None
    password: str | None = None
    securityMode: Literal["securityModeUnspecified", "none", "ssl", "starttls"] | None = None


class SendAsBody(_Body):
    sendAsEmail: str | None = None
    displayName: str | None = None
    replyToAddress: str | None = None
    signature: str | None = None
    isPrimary: ReadOnly[bool | None] = None
    isDefault: bool | None = None
    treatAsAlias: bool | None = None
    smtpMsa: ReadOnly[SmtpMsa | None] = None
    verificationStatus: ReadOnly[Literal["verificationStatusUnspecified", "accepted", "pending"] | None] = None


class ForwardingAddressBody(_Body):
    forwardingEmail: str | None = None
    verificationStatus: ReadOnly[Literal["verificationStatusUnspecified", "accepted", "pending"] | None] = None


class DelegateBody(_Body):
    delegateEmail: str | None = None
    verificationStatus: ReadOnly[Literal["verificationStatusUnspecified", "accepted", "pending", "rejected", "expired"] | None] = None


class VacationBody(_Body):
    enableAutoReply: bool | None = None
    responseSubject: str | None = None
    responseBodyPlainText: str | None = None
    responseBodyHtml: str | None = None
    restrictToContacts: bool | None = None
    restrictToDomain: bool | None = None
    startTime: str | int | None = None
    endTime: str | int | None = None


class AutoForwardingBody(_Body):
    enabled: bool | None = None
    emailAddress: str | None = None
    disposition: Literal["dispositionUnspecified", "leaveInInbox", "archive", "trash", "markRead"] | None = None


class ImapBody(_Body):
    enabled: bool | None = None
    autoExpunge: bool | None = None
    expungeBehavior: Literal["expungeBehaviorUnspecified", "archive", "trash", "deleteForever"] | None = None
    maxFolderSize: int | None = None


class PopBody(_Body):
    accessWindow: Literal["accessWindowUnspecified", "disabled", "fromNowOn", "allMail"] | None = None
    disposition: Literal["dispositionUnspecified", "leaveInInbox", "archive", "trash", "markRead"] | None = None


class LanguageBody(_Body):
    displayLanguage: str | None = None


class WatchBody(_Body):
    topicName: str | None = None
    labelIds: list[str] | None = None
    labelFilterAction: Literal["include", "exclude"] | None = None
    labelFilterBehavior: Literal["include", "exclude"] | None = None


def compact(model: BaseModel) -> dict[str, Any]:
    """The fields a client set, by their API names."""
    return model.model_dump(by_alias=True, exclude_none=True)
