"""One clause tree (documents.selectors.node_tree) behind the API's node tree and the navindex:
same nesting, every node once, a node whose parent comes later placed at the top level."""

from __future__ import annotations

from dataclasses import dataclass, field

import pytest

from legalnav.api.selectors import node_tree as api_node_tree
from legalnav.documents.models import Node
from legalnav.documents.selectors import document_nodes, node_tree
from legalnav.documents.services import document_add, document_index, document_navindex
from tests.conftest import demo_bytes

pytestmark = pytest.mark.django_db


@dataclass
class Branch:
    node_id: str
    children: list[Branch] = field(default_factory=list)


def shape(branches) -> list:
    return [(b.node_id, shape(b.children)) for b in branches]


def test_the_api_tree_and_the_navindex_share_one_nesting(matter, owner, django_assert_num_queries):
    doc, _ = document_add(
        matter=matter,
        filename="bioamber-development-agreement.txt",
        data=demo_bytes("bioamber-development-agreement.txt"),
        enqueue=False,
    )
    assert document_index(document_id=doc.pk).status == "indexed"
    with django_assert_num_queries(1):
        tree = node_tree(document=doc, make=lambda n: Branch(n.node_id))
    assert any(b.children for b in tree)
    api = api_node_tree(user=owner, document_id=doc.pk)
    assert shape(api.nodes) == shape(tree)
    assert api.node_count == Node.objects.filter(document=doc).count()
    assert shape(document_navindex(document=doc).roots) == shape(tree)
    flat = [n.node_id for n in document_nodes(document=doc)]
    assert flat == list(
        Node.objects.filter(document=doc).order_by("order").values_list("node_id", flat=True)
    )


def test_a_node_whose_parent_comes_later_is_at_the_top_level(matter):
    doc, _ = document_add(matter=matter, filename="a.txt", data=b"x", enqueue=False)

    def add(node_id: str, order: int, parent: Node | None = None) -> Node:
        return Node.objects.create(
            document=doc,
            node_id=node_id,
            order=order,
            parent=parent,
            level=0,
            start=0,
            end=0,
            subtree_end=0,
            text="",
        )

    late_parent = add("p", 2)
    add("c", 1, late_parent)
    add("c2", 3, late_parent)
    tree = node_tree(document=doc, make=lambda n: Branch(n.node_id))
    assert shape(tree) == [("c", []), ("p", [("c2", [])])]
