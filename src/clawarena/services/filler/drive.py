"""Drive and Docs filler: a My Drive of folders, notes, plans and spreadsheets-as-text, and a few Docs."""

from __future__ import annotations

from datetime import timedelta
from typing import Any

from clawarena.services.filler import FillerContext, register_filler
from clawarena.services.filler.content import PROJECTS, RISKS, TEAMS

FOLDERS = ("Projects", "Finance", "Meetings", "Personal", "Shared with team")
FILE_KINDS = (
    ("{project} - meeting notes {n}.txt", "Meeting notes ({project})\nAttendees: {a}, {b}\nDecisions: go ahead with phase {n}.\nOpen: {risk}."),
    ("{project} plan v{n}.txt", "Plan for the {project}\nMilestones: {n}\nOwner: {a}\nRisk: {risk}"),
    ("{team} budget FY26.csv", "line,amount_eur\ntravel,{amt1}\nsoftware,{amt2}\ntraining,{amt3}"),
    ("{team} headcount.csv", "role,count\nengineer,{n}\ndesigner,{m}\nanalyst,{k}"),
    ("Notes {team} offsite.txt", "Offsite ideas: {project}, team dinner, {risk} retro."),
    ("{project} requirements.md", "# {project} requirements\n- must support {n} regions\n- owner: {a}"),
)  # fmt: skip
DOC_TITLES = ("{project} one-pager", "{team} quarterly goals", "{project} retrospective", "Onboarding guide ({team})",
              "{project} launch checklist", "{team} process notes")  # fmt: skip


def _iso(ctx: FillerContext, days: int) -> str:
    return (ctx.now - timedelta(days=days)).strftime("%Y-%m-%dT%H:%M:%SZ")


@register_filler("drive")
def drive_filler(ctx: FillerContext) -> dict[str, Any]:
    c = ctx.corpus
    files: list[dict[str, Any]] = []
    for owner in ctx.principals:
        folder_ids = []
        for i, name in enumerate(FOLDERS):
            fid = f"f-{owner.id}-folder-{i}"
            folder_ids.append(fid)
            files.append({"id": fid, "name": name, "owner": owner.id, "mime_type": "folder", "created": _iso(ctx, 200 - i)})
        for i in range(max(0, ctx.count - len(FOLDERS))):
            name, body = c.pick(FILE_KINDS)
            v = {"project": c.pick(PROJECTS), "team": c.pick(TEAMS), "risk": c.pick(RISKS), "n": c.number(1, 9),
                 "m": c.number(1, 5), "k": c.number(1, 4), "a": c.person().name, "b": c.person().name,
                 "amt1": c.number(1000, 30000), "amt2": c.number(1000, 30000), "amt3": c.number(500, 9000)}  # fmt: skip
            created = c.number(3, 400)
            files.append({
                "id": f"f-{owner.id}-file-{i:03d}", "name": name.format(**v), "owner": owner.id, "content": body.format(**v),
                "parents": [c.pick(folder_ids)] if c.number(0, 3) else [], "created": _iso(ctx, created),
                "modified": _iso(ctx, max(1, created - c.number(0, created - 1))), "starred": c.number(0, 12) == 0,
            })  # fmt: skip
    return {"files": files}


@register_filler("docs")
def docs_filler(ctx: FillerContext) -> dict[str, Any]:
    c = ctx.corpus
    documents: list[dict[str, Any]] = []
    for owner in ctx.principals:
        for i in range(ctx.count):
            v = {"project": c.pick(PROJECTS), "team": c.pick(TEAMS)}
            title = c.pick(DOC_TITLES).format(**v)
            documents.append({
                "id": f"f-{owner.id}-doc-{i:02d}", "title": title, "owner": owner.id, "created": _iso(ctx, c.number(5, 300)),
                "content": [
                    {"text": title, "style": "TITLE"},
                    {"text": "Summary", "style": "HEADING_1"},
                    f"This document covers the {v['project']} for the {v['team']} team. Status: {c.pick(('on track', 'at risk', 'done'))}.",
                    {"text": "Next steps", "style": "HEADING_2"},
                    {"text": f"Confirm scope with {c.person().name}", "bullet": "bullet"},
                    {"text": f"Review {c.pick(RISKS)}", "bullet": "bullet"},
                ],
            })  # fmt: skip
    return {"documents": documents}
