"""Forms for matters and their members: they parse input; the services decide."""

from __future__ import annotations

from django import forms

from legalnav.matters.models import Matter, Membership


class MatterForm(forms.Form):
    name = forms.CharField(
        max_length=200,
        error_messages={"required": "Give the matter a name."},
        help_text="As the team refers to it, e.g. “Atlas acquisition”.",
    )
    kind = forms.ChoiceField(choices=Matter.Kind.choices, initial=Matter.Kind.TRANSACTION)
    description = forms.CharField(
        required=False,
        max_length=2000,
        widget=forms.Textarea(attrs={"rows": 3}),
        help_text="Optional: the client, the deal, what the documents are for.",
    )

    def clean_name(self) -> str:
        name = self.cleaned_data["name"].strip()
        if not name:
            raise forms.ValidationError("Give the matter a name.")
        return name


class MemberAddForm(forms.Form):
    username = forms.CharField(
        max_length=150, widget=forms.TextInput(attrs={"autocomplete": "off"})
    )
    role = forms.ChoiceField(choices=Membership.Role.choices, initial=Membership.Role.VIEWER)


class MemberRoleForm(forms.Form):
    role = forms.ChoiceField(choices=Membership.Role.choices)


class RetentionForm(forms.Form):
    retain_until = forms.DateField(
        required=False,
        widget=forms.DateInput(attrs={"type": "date"}),
        help_text="From this day the matter is listed for staff as due for purge. Leave empty "
        "for no date.",
    )


class TypedNameForm(forms.Form):
    typed_name = forms.CharField(
        max_length=200,
        widget=forms.TextInput(attrs={"autocomplete": "off"}),
        error_messages={"required": "Type the matter's name to confirm."},
    )
