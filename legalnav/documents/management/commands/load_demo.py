"""Load the demo matter from demo/manifest.json: real public agreements, indexed on the spot."""

from __future__ import annotations

import json
from datetime import date
from pathlib import Path

from django.conf import settings
from django.contrib.auth import get_user_model
from django.core.management.base import BaseCommand, CommandError, CommandParser

from legalnav.documents.actions import document_upload
from legalnav.documents.models import Document
from legalnav.matters.actions import matter_open, member_add
from legalnav.matters.models import Matter, Membership


class Command(BaseCommand):
    help = "Create the demo matter from the public agreements in demo/ and index it."

    def add_arguments(self, parser: CommandParser) -> None:
        parser.add_argument("--manifest", default=str(settings.BASE_DIR / "demo" / "manifest.json"))
        parser.add_argument(
            "--user",
            default="demo",
            help="Make this user (created with password 'demo' if missing) the matter's owner.",
        )
        parser.add_argument("--no-user", action="store_true", help="Create no user.")

    def handle(self, *args: object, **opts: object) -> None:
        manifest_path = Path(str(opts["manifest"]))
        try:
            manifest = json.loads(manifest_path.read_text(encoding="utf-8"))
        except (OSError, ValueError) as exc:
            raise CommandError(f"Cannot read the demo manifest {manifest_path}: {exc}") from exc
        folder = manifest_path.parent / "documents"
        spec = manifest["matter"]
        user = None if opts["no_user"] else self._demo_user(str(opts["user"]))
        matter = Matter.objects.filter(name=spec["name"]).first()
        if matter is None:
            # Its owner is the demo user (none with --no-user: then nobody sees it until a
            # member is added, but staff with LEGALNAV_STAFF_SEE_ALL_MATTERS on).
            matter = matter_open(
                user=user,
                name=spec["name"],
                kind=spec.get("kind", "transaction"),
                description=spec.get("description", ""),
                via="command",
            )
        elif user is not None and not Membership.objects.filter(matter=matter, user=user).exists():
            member_add(
                matter=matter,
                user=None,
                username=user.get_username(),
                role=Membership.Role.OWNER,
                via="command",
            )

        by_file: dict[str, Document] = {}
        for item in manifest["documents"]:
            path = folder / item["file"]
            outcome = document_upload(
                matter=matter,
                user=None,
                filename=item["file"],
                data=path.read_bytes(),
                via="command",
                here=True,
                title=item.get("title", ""),
                kind=item.get("kind", ""),
                amends=by_file.get(item.get("amends", "")),
                effective_date=date.fromisoformat(item["effective_date"])
                if item.get("effective_date")
                else None,
            )
            doc, index = outcome.document, outcome.index
            assert doc is not None and index is not None  # accepted and indexed here
            by_file[item["file"]] = doc
            self.stdout.write(
                f"{'added' if outcome.created else 'kept '}  {doc.title}: {index.status} "
                f"({index.nodes} clauses){' — ' + index.message if index.message else ''}"
            )
        self.stdout.write(
            self.style.SUCCESS(f"Demo matter “{matter.name}” is ready (id {matter.pk}).")
        )

    def _demo_user(self, username: str):  # type: ignore[no-untyped-def]
        User = get_user_model()
        user, created = User.objects.get_or_create(
            username=username, defaults={"is_staff": True, "is_superuser": True}
        )
        if created:
            user.set_password("demo")
            user.save(update_fields=["password"])
            self.stdout.write(
                f"Created user “{username}” with password “demo” (for the local demo only)."
            )
        return user
