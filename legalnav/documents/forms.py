"""Forms for documents: the multi-file upload and a document's details."""

from __future__ import annotations

from typing import Any

from django import forms
from django.core.files.uploadedfile import UploadedFile

from legalnav.documents.actions import MAX_FILES_PER_UPLOAD
from legalnav.documents.models import Document
from legalnav.documents.parsing.extract import SUPPORTED_EXTENSIONS

ACCEPT = ",".join(sorted(SUPPORTED_EXTENSIONS | {".zip"}))


class MultipleFileInput(forms.FileInput):
    allow_multiple_selected = True


class MultipleFileField(forms.FileField):
    """Several files under one name. Each file's own checks (empty, too large, unknown type) are
    the upload service's, so that one bad file is refused with its reason and the rest go in."""

    widget = MultipleFileInput

    def __init__(self, **kwargs: Any) -> None:
        kwargs.setdefault("allow_empty_file", True)
        super().__init__(**kwargs)

    def clean(self, data: Any, initial: Any = None) -> list[UploadedFile]:
        files = data if isinstance(data, list | tuple) else [data] if data else []
        if not files:
            raise forms.ValidationError("Choose at least one file to upload.", code="required")
        if len(files) > MAX_FILES_PER_UPLOAD:
            raise forms.ValidationError(
                f"Upload at most {MAX_FILES_PER_UPLOAD} files at a time; {len(files)} were chosen.",
                code="too_many",
            )
        return [super(MultipleFileField, self).clean(f, initial) for f in files]


class UploadForm(forms.Form):
    documents = MultipleFileField(
        widget=MultipleFileInput(attrs={"accept": ACCEPT, "multiple": True}),
    )


class DocumentChoiceField(forms.ModelChoiceField):
    def label_from_instance(self, obj: Any) -> str:
        return f"{obj.key} · {obj.title}"


class DocumentDetailsForm(forms.Form):
    title = forms.CharField(max_length=300)
    kind = forms.ChoiceField(choices=Document.Kind.choices)
    effective_date = forms.DateField(
        required=False, widget=forms.DateInput(attrs={"type": "date"}, format="%Y-%m-%d")
    )
    amends = DocumentChoiceField(
        queryset=Document.objects.none(),
        required=False,
        empty_label="— nothing —",
        help_text="For an amendment or side letter: the document it changes. Its references "
        "then link into that document and the reader shows the change beside each clause.",
    )

    def __init__(self, *args: Any, document: Document, **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        field = self.fields["amends"]
        assert isinstance(field, DocumentChoiceField)
        field.queryset = (
            Document.objects.filter(matter_id=document.matter_id)
            .exclude(pk=document.pk)
            .only("id", "title", "matter_id")
            .order_by("title", "id")
        )
