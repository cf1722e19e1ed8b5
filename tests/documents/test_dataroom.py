"""A data room in one zip: every file becomes a document with its folder, nested zips opened,
non-documents left out with the reason, the same bytes recorded as a copy, zip bombs and odd
paths refused or kept as text; through the page, the API and ``ingest``."""

from __future__ import annotations

import io
import zipfile
from pathlib import Path

import pytest
from django.core.files.uploadedfile import SimpleUploadedFile
from django.core.management import call_command
from django.core.management.base import CommandError
from django.urls import reverse

from legalnav.documents.models import Document, DocumentCopy
from legalnav.documents.parsing.extract import SUPPORTED_EXTENSIONS, ExtractionError
from legalnav.documents.parsing.extract.archive import (
    ArchiveFile,
    ArchiveLimits,
    ArchiveSkip,
    walk_archive,
)
from legalnav.documents.verbs import Verb as DocumentVerb
from legalnav.matters.models import AuditEvent
from tests.conftest import MembershipFactory, demo_bytes

BASE = demo_bytes("bioamber-development-agreement.txt")
AMENDMENT = demo_bytes("bioamber-development-agreement-first-amendment.txt")
LIMITS = ArchiveLimits(file_bytes=10 * 1024 * 1024)


def make_zip(files: dict[str, bytes], *, compression: int = zipfile.ZIP_DEFLATED) -> bytes:
    buf = io.BytesIO()
    with zipfile.ZipFile(buf, "w", compression) as zf:
        for name, data in files.items():
            zf.writestr(name, data)
    return buf.getvalue()


def data_room() -> bytes:
    inner = make_zip({"Schedules/schedule-1.txt": b"SCHEDULE 1\n1. Prices. The price is $5.\n"})
    return make_zip(
        {
            "Data room/1. Corporate/development.txt": BASE,
            "Data room/2. Commercial/Supply/first amendment.txt": AMENDMENT,
            "Data room/2. Commercial/Supply/copy of development.txt": BASE,
            "Data room/3. Other/photo.heic": b"\x00\x00\x00\x18ftypheic",
            "Data room/3. Other/empty.txt": b"",
            "Data room/3. Other/old.zip": inner,
            "__MACOSX/Data room/._development.txt": b"\x00\x05\x16\x07",
            "Data room/.DS_Store": b"\x00\x00\x00\x01Bud1",
        }
    )


def walk(data: bytes, limits: ArchiveLimits = LIMITS) -> list[ArchiveFile | ArchiveSkip]:
    return list(walk_archive(data, "room.zip", limits=limits, supported=SUPPORTED_EXTENSIONS))


def test_files_come_out_with_their_folders_and_the_rest_with_reasons() -> None:
    items = walk(data_room())
    files = [i for i in items if isinstance(i, ArchiveFile)]
    skipped = {i.path: i.reason for i in items if isinstance(i, ArchiveSkip)}
    assert [(f.folder, f.name) for f in files] == [
        ("Data room / 1. Corporate", "development.txt"),
        ("Data room / 2. Commercial / Supply", "first amendment.txt"),
        ("Data room / 2. Commercial / Supply", "copy of development.txt"),
        ("Data room / 3. Other / old / Schedules", "schedule-1.txt"),  # the nested zip, opened
    ]
    assert files[0].data == BASE
    assert skipped == {
        "Data room / 3. Other / photo.heic": "not a document legalnav reads (“.heic” files)",
        "Data room / 3. Other / empty.txt": "empty",
    }  # macOS metadata and .DS_Store are dropped without a word


def test_paths_that_climb_or_are_absolute_are_only_text() -> None:
    items = walk(
        make_zip(
            {
                "../../etc/passwd.txt": b"1. Term. One year.\n",
                "/abs/dir/a.txt": b"1. Term. Two years.\n",
                "C:\\Users\\x\\b\\tab\there.txt": b"1. Term. Three years.\n",
            }
        )
    )
    assert [(i.folder, i.name) for i in items if isinstance(i, ArchiveFile)] == [
        (".. / .. / etc", "passwd.txt"),
        ("abs / dir", "a.txt"),
        ("Users / x / b", "tabhere.txt"),
    ]


def test_long_file_names_keep_their_extension() -> None:
    # CUAD's own names run past 120 characters ("… Content License Agreement_ Marketing
    # Agreement_ Sales-Purchase.txt"); a shortened name still says what type the file is.
    long_name = "PlayboyEnterprisesInc_EX-10.2_Content License Agreement_ " * 5 + "Sales.txt"
    items = walk(make_zip({f"Room/{long_name}": b"1. Term. One year.\n"}))
    assert len(items) == 1 and isinstance(items[0], ArchiveFile)
    assert items[0].name.endswith(".txt") and len(items[0].name) <= 200


def test_a_zip_bomb_is_refused_from_its_directory() -> None:
    bomb = make_zip({"a.txt": b"0" * (20 * 1024 * 1024)})  # 20 MiB of zeros: ~1000x
    with pytest.raises(ExtractionError) as err:
        walk(bomb)
    assert err.value.code == "too_large" and "zip bomb" in err.value.message
    nested = make_zip({"ok.txt": b"1. Term. One year.\n", "inner.zip": bomb})
    items = walk(nested)
    assert [i.name for i in items if isinstance(i, ArchiveFile)] == ["ok.txt"]
    assert any(isinstance(i, ArchiveSkip) and "zip bomb" in i.reason for i in items)


def test_too_many_files_or_bytes_refuse_the_zip() -> None:
    many = make_zip({f"f{n}.txt": b"x" for n in range(6)})
    with pytest.raises(ExtractionError) as err:
        walk(many, ArchiveLimits(files=5))
    assert err.value.code == "too_large" and "6 files" in err.value.message
    with pytest.raises(ExtractionError) as err:
        walk(make_zip({"a.txt": b"x" * 5000}), ArchiveLimits(expanded_bytes=4000))
    assert err.value.code == "too_large" and "expands to" in err.value.message


def test_a_damaged_zip_and_an_encrypted_member_say_why() -> None:
    with pytest.raises(ExtractionError) as err:
        walk(b"PK\x03\x04 this is not a zip")
    assert err.value.code == "corrupt"
    data = bytearray(make_zip({"secret.txt": b"1. Term.\n"}, compression=zipfile.ZIP_STORED))
    # Set the "encrypted" flag in the local and the central header, as a password tool would.
    local, central = data.find(b"PK\x03\x04"), data.find(b"PK\x01\x02")
    data[local + 6] |= 1
    data[central + 8] |= 1
    assert walk(bytes(data)) == [ArchiveSkip("secret.txt", "password-protected inside the zip")]


@pytest.mark.django_db
def test_a_data_room_uploaded_on_the_page(
    client, matter, owner, django_capture_on_commit_callbacks
):
    client.force_login(owner)
    upload = SimpleUploadedFile("Data room.zip", data_room(), content_type="application/zip")
    with django_capture_on_commit_callbacks(execute=True):
        response = client.post(
            reverse("matter-upload", args=[matter.pk]), {"documents": [upload]}, follow=True
        )
    page = response.content.decode()
    assert (
        "“Data room.zip”: 3 documents added, indexing has started; 1 file already in this " in page
    )
    assert "recorded as copy; 2 files left out." in page
    assert "Data room / 3. Other / photo.heic: not a document legalnav reads" in page
    docs = {d.original_filename: d for d in Document.objects.filter(matter=matter)}
    assert set(docs) == {"development.txt", "first amendment.txt", "schedule-1.txt"}
    assert docs["first amendment.txt"].folder == "Data room / 2. Commercial / Supply"
    assert all(d.status == Document.Status.INDEXED for d in docs.values())
    copy = DocumentCopy.objects.get()
    assert copy.document == docs["development.txt"] and copy.filename == "copy of development.txt"
    audits = AuditEvent.objects.filter(action=DocumentVerb.UPLOADED)
    assert audits.count() == 3
    assert {a.detail["archive"] for a in audits} == {"Data room.zip"}
    # The matter page shows folders and copies; the document's page lists where the copy was.
    listing = client.get(reverse("matter-detail", args=[matter.pk])).content.decode()
    assert "Data room / 2. Commercial / Supply /" in listing and "1 copy" in listing
    detail = client.get(reverse("document-detail", args=[docs["development.txt"].pk])).content
    assert "Data room / 2. Commercial / Supply / copy of development.txt" in detail.decode()
    # Stored files have safe names of their own, never the zip's paths.
    assert all("/" not in Path(d.source_file.name).name for d in docs.values())


@pytest.mark.django_db
def test_a_data_room_through_the_api(client, matter, owner):
    from legalnav.api.tokens import api_token_create

    _, secret = api_token_create(user=owner, name="t")
    auth = {"HTTP_AUTHORIZATION": f"Bearer {secret}"}
    url = f"/api/v1/matters/{matter.pk}/archives"
    response = client.post(url, {"file": SimpleUploadedFile("room.zip", data_room())}, **auth)
    assert response.status_code == 201, response.content
    body = response.json()
    assert (body["added"], body["copies"], body["left_out"]) == (3, 1, 2)
    by_path = {f["path"]: f for f in body["files"]}
    amendment = by_path["Data room / 2. Commercial / Supply / first amendment.txt"]
    assert amendment["created"] and amendment["document"]["folder"] == (
        "Data room / 2. Commercial / Supply"
    )
    assert by_path["Data room / 3. Other / empty.txt"]["error"]["message"] == "empty"
    # A zip sent as a single document, and a document sent as a zip, are told where to go.
    wrong = client.post(
        f"/api/v1/matters/{matter.pk}/documents",
        {"file": SimpleUploadedFile("room.zip", data_room())},
        **auth,
    )
    assert wrong.status_code == 415 and "/archives" in wrong.json()["error"]["message"]
    wrong = client.post(url, {"file": SimpleUploadedFile("a.txt", BASE)}, **auth)
    assert wrong.status_code == 415
    # A damaged zip adds nothing.
    bad = client.post(url, {"file": SimpleUploadedFile("bad.zip", b"PK\x03\x04 no")}, **auth)
    assert bad.status_code == 422 and bad.json()["error"]["code"] == "corrupt"
    # Someone outside the matter cannot learn it exists.
    outsider = MembershipFactory().user
    _, other = api_token_create(user=outsider, name="o")
    denied = client.post(
        url,
        {"file": SimpleUploadedFile("room.zip", data_room())},
        HTTP_AUTHORIZATION=f"Bearer {other}",
    )
    assert denied.status_code == 404
    assert Document.objects.filter(matter=matter).count() == 3


@pytest.mark.django_db
def test_ingest_reads_a_zip_and_a_folder(tmp_path: Path, matter, capsys):
    room = tmp_path / "room.zip"
    room.write_bytes(data_room())
    folder = tmp_path / "Closing set" / "Signed"
    folder.mkdir(parents=True)
    (folder / "amendment.txt").write_bytes(AMENDMENT + b"\n")
    with pytest.raises(CommandError) as err:  # two files are left out of the zip
        call_command("ingest", str(room), str(tmp_path / "Closing set"), "--matter", str(matter.pk))
    assert "2 of 7 file(s) could not be indexed" in str(err.value)
    out = capsys.readouterr()
    assert "photo.heic: left out: not a document legalnav reads" in out.err
    assert "copy of development.txt: already in the matter as document" in out.out
    signed = Document.objects.get(matter=matter, original_filename="amendment.txt")
    assert signed.folder == "Closing set / Signed" and signed.status == Document.Status.INDEXED
