"""Structure: turn an agreement's text into a tree of clause nodes.

The parser walks the text line by line. A line may open a node (an article, a section, a
sub-clause, a definition, a recital, a signature block, a schedule/exhibit/annex, a table of
contents); every other line is text of the innermost open node. Which node a new label nests
under follows the numbering: structural labels (articles, "5.17", attachments) have a fixed
rank, enumerations ("(a)", "(i)", "(A)", "(1)") nest in the order they appear, and each label
must continue its sibling's sequence, which rejects a "(b)" or "2.17" that only starts a line
because of hard wrapping.

- ``nodes``: what the parser produces (``ParsedNode``, ``TocEntry``, ``Structure``) and node ids;
- ``patterns``: what labels, headings and contents lines look like;
- ``contents``: tables of contents;
- ``tree``: the stack of open nodes and the numbering rules;
- ``headings``: one recogniser per kind of node a line may open;
- ``parser``: the line loop and ``parse_structure``.
"""

from __future__ import annotations

from legalnav.documents.parsing.structure.nodes import (
    ATTACHMENT_KINDS,
    RANK_ATTACHMENT,
    RANK_DECIMAL,
    RANK_TOP,
    ParsedNode,
    Structure,
    TocEntry,
)
from legalnav.documents.parsing.structure.parser import parse_structure
from legalnav.documents.parsing.structure.patterns import is_prose, looks_like_title, split_heading

__all__ = [
    "ATTACHMENT_KINDS",
    "RANK_ATTACHMENT",
    "RANK_DECIMAL",
    "RANK_TOP",
    "ParsedNode",
    "Structure",
    "TocEntry",
    "is_prose",
    "looks_like_title",
    "parse_structure",
    "split_heading",
]
