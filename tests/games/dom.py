"""A small DOM for the consumer tests: a page parsed from the site's HTML, the frames of a
table's socket swapped into it as htmx's ws extension swaps them (htmx 2's out-of-band
swaps: each top-level element of a frame replaces the element of its id, or goes where
its ``hx-swap-oob`` says: ``beforeend:``, ``afterbegin:``, ``afterend:``, ``delete:``;
an ``hx-preserve`` element with an id takes the page's element of that id), and parts
of it written out again to compare with a page drawn afresh.

Only the selectors the site's frames use are understood (``#id``, lists of them, and
``#id>:nth-child(n+K)`` / ``#id>:nth-last-child(-n+K)``); anything else, or a swap whose
target is missing (htmx logs an error and leaves the page), fails the test."""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from html import escape
from html.parser import HTMLParser

VOID = {"area", "base", "br", "col", "embed", "hr", "img", "input", "link", "meta", "source", "wbr"}


@dataclass
class Text:
    text: str
    parent: Element | None = None

    def html(self) -> str:
        if self.parent is not None and self.parent.tag in ("script", "style"):
            return self.text
        return escape(self.text, quote=False).replace("\xa0", "&nbsp;")


@dataclass
class Element:
    tag: str
    attrs: dict[str, str] = field(default_factory=dict)
    children: list[Element | Text] = field(default_factory=list)
    parent: Element | None = None

    def html(self) -> str:
        attrs = "".join(
            f' {name}="{escape(value, quote=True).replace("&#x27;", chr(39))}"'
            for name, value in self.attrs.items()
        )
        if self.tag in VOID:
            return f"<{self.tag}{attrs}>"
        inner = "".join(child.html() for child in self.children)
        return f"<{self.tag}{attrs}>{inner}</{self.tag}>"

    def elements(self) -> list[Element]:
        return [child for child in self.children if isinstance(child, Element)]

    def walk(self):
        for child in self.children:
            if isinstance(child, Element):
                yield child
                yield from child.walk()

    def by_id(self, id_: str) -> Element | None:
        return next((e for e in self.walk() if e.attrs.get("id") == id_), None)

    def text(self) -> str:
        return "".join(c.text if isinstance(c, Text) else c.text() for c in self.children)

    def adopt(self, nodes: list[Element | Text], at: int) -> None:
        for node in nodes:
            detach(node)
            node.parent = self
        self.children[at:at] = nodes


def detach(node: Element | Text) -> None:
    if node.parent is not None:
        node.parent.children.remove(node)
        node.parent = None


class _Builder(HTMLParser):
    def __init__(self) -> None:
        super().__init__(convert_charrefs=True)
        self.root = Element("#root")
        self.stack = [self.root]

    def handle_starttag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        element = Element(tag, {name: value or "" for name, value in attrs})
        self.stack[-1].adopt([element], len(self.stack[-1].children))
        if tag not in VOID:
            self.stack.append(element)

    def handle_startendtag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        element = Element(tag, {name: value or "" for name, value in attrs})
        self.stack[-1].adopt([element], len(self.stack[-1].children))

    def handle_endtag(self, tag: str) -> None:
        if tag in VOID:
            return
        for depth in range(len(self.stack) - 1, 0, -1):
            if self.stack[depth].tag == tag:
                del self.stack[depth:]
                return
        raise AssertionError(f"</{tag}> closes nothing")

    def handle_data(self, data: str) -> None:
        parent = self.stack[-1]
        parent.adopt([Text(data)], len(parent.children))


def parse(html: str) -> Element:
    builder = _Builder()
    builder.feed(html)
    builder.close()
    return builder.root


_CHILD = re.compile(r"^#([\w-]+)>:nth-(last-)?child\(([-+n\d]+)\)$")


def select(root: Element, selector: str) -> list[Element]:
    """The elements ``selector`` picks (only the forms the site's frames use)."""
    found: list[Element] = []
    for part in selector.split(","):
        part = part.strip()
        child = _CHILD.match(part)
        if child:
            parent = root.by_id(child.group(1))
            if parent is None:
                continue
            kids = parent.elements()
            formula = child.group(3)
            indexes = _nth(formula, len(kids))
            if child.group(2):
                picked = [kids[len(kids) - i] for i in indexes]
            else:
                picked = [kids[i - 1] for i in indexes]
            found += [e for e in kids if any(e is p for p in picked)]
        elif re.fullmatch(r"#[\w-]+", part):
            element = root.by_id(part[1:])
            if element is not None:
                found.append(element)
        else:
            raise AssertionError(f"a selector the test does not understand: {part!r}")
    return found


def _nth(formula: str, count: int) -> list[int]:
    """The 1-based positions an+b picks among ``count`` (a = 1 or -1 only)."""
    match = re.fullmatch(r"(-?)n\+(\d+)", formula)
    if match is None:
        raise AssertionError(f"an nth formula the test does not understand: {formula!r}")
    step, start = (-1 if match.group(1) else 1), int(match.group(2))
    return [i for i in range(1, count + 1) if (i - start) * step >= 0]


def swap(page: Element, frame: str) -> None:
    """Swap a frame into the page as htmx's ws extension does."""
    for oob in parse(frame).elements():
        value = oob.attrs.pop("hx-swap-oob", "true")
        style, selector = "outerHTML", "#" + oob.attrs.get("id", "")
        if value != "true":
            if ":" in value:
                style, selector = value.split(":", 1)
            else:
                style = value
        targets = select(page, selector)
        assert targets, f"nothing on the page for {selector!r} ({oob.html()[:200]})"
        for target in targets:
            _swap_one(page, style, target, oob)


def _clone(node: Element | Text) -> Element | Text:
    if isinstance(node, Text):
        return Text(node.text)
    copy = Element(node.tag, dict(node.attrs))
    copy.adopt([_clone(child) for child in node.children], 0)
    return copy


def _swap_one(page: Element, style: str, target: Element, oob: Element) -> None:
    holder = Element("#fragment")
    holder.adopt([_clone(oob)] if style == "outerHTML" else [_clone(c) for c in oob.children], 0)
    # hx-preserve: the page's element of the id takes the placeholder's place.
    for kept in [e for e in holder.walk() if "hx-preserve" in e.attrs and e.attrs.get("id")]:
        existing = page.by_id(kept.attrs["id"])
        if existing is not None:
            parent = kept.parent
            at = parent.children.index(kept)
            detach(kept)
            parent.adopt([existing], at)
    nodes = list(holder.children)
    parent = target.parent
    if style == "outerHTML":
        at = parent.children.index(target)
        detach(target)
        parent.adopt(nodes, at)
    elif style == "beforeend":
        target.adopt(nodes, len(target.children))
    elif style == "afterbegin":
        target.adopt(nodes, 0)
    elif style == "afterend":
        parent.adopt(nodes, parent.children.index(target) + 1)
    elif style == "delete":
        detach(target)
    else:
        raise AssertionError(f"a swap the test does not understand: {style!r}")
