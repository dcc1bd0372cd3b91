"""Sphinx configuration of dpviz's documentation site.

``make docs`` builds it into ``build/docs`` with warnings as errors (``-W --keep-going``) and every cross-reference
checked (``-n``). Pages are MyST markdown; the API reference is generated from the docstrings (autodoc, numpy-style
sections through napoleon) by the ``dpviz-module`` directive below, which lists (a summary table: name and first
sentence) and documents exactly a module's ``__all__``.
"""

import importlib
import inspect
import pkgutil
import re
import sys
import types

from docutils import nodes
from docutils.parsers.rst import directives
from docutils.statemachine import StringList
from sphinx.errors import PycodeError
from sphinx.pycode import ModuleAnalyzer
from sphinx.util.docutils import SphinxDirective
from sphinx.util.nodes import make_refnode, nested_parse_with_titles

project = "dpviz"
author = "the dpviz authors"
copyright = "the dpviz authors"

extensions = [
    "myst_parser",
    "sphinx.ext.autodoc",
    "sphinx.ext.napoleon",
]

source_suffix = {".md": "markdown"}
root_doc = "index"
exclude_patterns = ["_build"]

# MyST: `#anchor` links to headings up to level 3, ``{eval-rst}`` only where autodoc needs it.
myst_heading_anchors = 3
myst_enable_extensions = ["deflist"]

html_theme = "furo"
html_title = "dpviz"
html_static_path = []

# autodoc: members in the order of the module's __all__ (which groups them by topic); type hints shown in the
# signature only as written (numpy's and typing's names are not in this site, so they are not cross-referenced).
autodoc_member_order = "bysource"
autodoc_typehints = "none"
autodoc_default_options = {"members": True}

# numpy-style docstrings: types stay plain text beside each parameter ("float, optional", "array_like"), so that
# nitpicky mode does not try to resolve them as classes.
napoleon_google_docstring = False
napoleon_numpy_docstring = True
napoleon_use_param = False
napoleon_use_rtype = False
napoleon_use_ivar = True
napoleon_use_admonition_for_examples = False
# "Attributes" read like "Parameters": each name with its type in plain text (as an attribute entry, a type such as
# "(n,) array of 0/1" would be cross-referenced as a class).
napoleon_custom_sections = [("Attributes", "params_style")]


def _skip_namedtuple_fields(app, what, name, obj, skip, options):
    """A NamedTuple's fields carry the generated docstring "Alias for field number N": documented by the class."""
    doc = getattr(obj, "__doc__", None) or ""
    if what == "class" and doc.startswith("Alias for field number"):
        return True
    return None


# dpviz's docstrings are plain text with Unicode formulas ("|S − S′|", "G_ = min(G, σ√d)", "``resolution``²"),
# numpy-style sections and a few roles; read as reStructuredText, "|x|" is a substitution, "G_" a hyperlink
# reference and a list without a blank line before it an error. The filter below keeps such text literal before
# napoleon reads the sections. It never changes ``literals``, roles, literal blocks or doctests.
_INLINE_CODE = re.compile(r"(``.+?``|:[a-z:]+:`[^`]*`)")
_LIST_ITEM = re.compile(r"^(\s*)([-*+•]|\d+\.|\(\w\))\s+\S")


def _escape_text(text):
    parts = _INLINE_CODE.split(text)
    for i in range(0, len(parts), 2):
        part = parts[i].replace("|", "\\|")
        parts[i] = re.sub(r"(?<=\w)_(?=$|[^\w`])", r"\\_", part)
    for i in range(1, len(parts), 2):  # markup must end before a space or punctuation: ``x``² is ``x``\ ²
        after = parts[i + 1] if i + 1 < len(parts) else ""
        if parts[i].startswith("``") and after[:1] and not re.match(r"[\s\-.,:;!?'\")\]}/\\]", after[:1]):
            parts[i] += "\\ "
    return "".join(parts)


def _plain_text_docstring(lines):
    out, literal_indent, doctest, item_indent, previous_blank = [], None, False, None, True
    for line in lines:
        stripped = line.lstrip()
        indent = len(line) - len(stripped)
        if not stripped:
            doctest, previous_blank, item_indent = False, True, None
            out.append(line)
            continue
        if literal_indent is not None and indent > literal_indent:
            out.append(line)
            previous_blank = False
            continue
        literal_indent = None
        if doctest or stripped.startswith(">>>"):
            doctest, previous_blank = True, False
            out.append(line)
            continue
        # a list needs a blank line before it, between it and a list nested in it, and after it
        item = _LIST_ITEM.match(line) is not None
        if not previous_blank:
            if item and item_indent != indent:
                out.append("")
            elif not item and item_indent is not None and indent <= item_indent:
                out.append("")
                item_indent = None
        if item:
            item_indent = indent
        out.append(_escape_text(line))
        if stripped.endswith("::"):
            literal_indent = indent
        previous_blank = False
    lines[:] = out


_SAVED = {}


def _before_napoleon(app, what, name, obj, options, lines):
    _plain_text_docstring(lines)
    if what in ("attribute", "property", "data"):
        _SAVED[id(lines)] = list(lines)


def _after_napoleon(app, what, name, obj, options, lines):
    # napoleon reads the first line of an attribute's docstring as "type: description" (Google style), which turns
    # "Read-only record (what was composed): ..." into a type to cross-reference; these docstrings have no sections.
    saved = _SAVED.pop(id(lines), None)
    if saved is not None:
        lines[:] = saved


_ABBREVIATIONS = {"al", "Alg", "App", "cf", "Ch", "Cor", "Def", "e.g", "Eq", "Fig", "i.e", "Lem", "No", "Prop", "resp",
                  "Sec", "Thm", "vs"}


def _member_doc(module, name):
    """A member's docstring; for a constant, the ``#:`` comment where a dpviz module defines it (ints and tuples
    have no docstring of their own)."""
    obj = getattr(module, name)
    if inspect.isclass(obj) or callable(obj) or isinstance(obj, types.ModuleType):
        return inspect.getdoc(obj) or ""
    for modname in sorted(m for m in sys.modules if m == "dpviz" or m.startswith("dpviz.")):
        source = sys.modules[modname]
        if getattr(source, name, _MISSING) is not obj:
            continue
        try:
            comments = ModuleAnalyzer.for_module(modname).find_attr_docs()
        except PycodeError:
            continue
        if ("", name) in comments:
            return "\n".join(comments["", name]).strip()
    return ""


def _first_sentence(doc):
    """The first sentence of a docstring's first paragraph, on one line, as a summary table shows it: it ends at a
    full stop followed by a capital, not after "Def." or "et al."."""
    paragraph = " ".join(doc.strip().split("\n\n")[0].split())
    for stop in re.finditer(r"\.\s+(?=[A-Z])", paragraph):
        word = paragraph[:stop.start()].rsplit(" ", 1)[-1].lstrip("([")
        if word not in _ABBREVIATIONS and not re.fullmatch(r"[A-Z]", word):
            paragraph = paragraph[:stop.start() + 1]
            break
    line = [paragraph]
    _plain_text_docstring(line)
    return " ".join(line).strip() or "—"


def _submodules(package):
    """The public submodules of a package, depth first (none for a plain module)."""
    if not hasattr(package, "__path__"):
        return []
    found = []
    for info in pkgutil.iter_modules(package.__path__, package.__name__ + "."):
        if info.name.rsplit(".", 1)[-1].startswith("_"):
            continue
        module = importlib.import_module(info.name)
        found += [module, *_submodules(module)]
    return found


_MISSING = object()


def _lookup(path):
    """The object at a dotted path (a module, then attributes), or _MISSING."""
    parts = path.split(".")
    for cut in range(len(parts), 0, -1):
        try:
            obj = importlib.import_module(".".join(parts[:cut]))
        except ImportError:
            continue
        for attr in parts[cut:]:
            found = getattr(obj, attr, _MISSING)
            if found is _MISSING and inspect.isclass(obj):
                found = _instance_attribute(obj, attr)
            if found is _MISSING:
                return _MISSING
            obj = found
        return obj
    return _MISSING


def _instance_attribute(cls, attr):
    """A dataclass field, or an attribute that the class's methods assign (``self.output = ...``): it exists on
    instances only. Returned as a marker of its own, which no documented entry is."""
    if attr in getattr(cls, "__dataclass_fields__", {}):
        return (cls, attr)
    try:
        source = inspect.getsource(cls)
    except (OSError, TypeError):
        return _MISSING
    return (cls, attr) if re.search(rf"self\.{re.escape(attr)}\s*(:[^=\n]*)?=", source) else _MISSING


def _resolve_by_import(app, env, node, contnode):
    """Resolve a Python reference that Sphinx's own rules miss, by importing what it names.

    A docstring refers to objects as its own module sees them (``:func:`group_privacy``` in a submodule that imports
    it, ``:mod:`.accounting```), while the reference documents each object under the package that exports it. So
    the target is looked up as written, then in the documenting module, its class and its submodules; an object
    found there links to the entry that documents that very object. An object that exists but is not part of the
    public reference (a private kernel, an internal constant) is shown as code without a link. A name that exists
    nowhere is left to Sphinx, which warns.
    """
    if node.get("refdomain") != "py":
        return None
    target = node["reftarget"].lstrip(".")
    context = node.get("py:module") or ""
    klass = node.get("py:class")
    bases = [f"{context}.{klass}"] if klass else []
    if context:
        bases += [context] + [m.__name__ for m in _submodules(importlib.import_module(context))]
    # where the docstring was written: "…/group.py:docstring of dpviz.accountants.group.group_privacy_lift"
    written = re.search(r"docstring of ([\w.]+)", node.source or "")
    if written:
        parts = written.group(1).split(".")
        bases += [".".join(parts[:cut]) for cut in range(len(parts), 1, -1)]
    for path in [target, *(f"{base}.{target}" for base in bases)]:
        obj = _lookup(path)
        if obj is not _MISSING:
            break
    else:
        return None
    domain = env.get_domain("py")
    last = target.rsplit(".", 1)[-1]
    for fullname, entry in domain.objects.items():
        if fullname.rsplit(".", 1)[-1] == last and not entry.aliased and _lookup(fullname) is obj:
            return make_refnode(app.builder, node["refdoc"], entry.docname, entry.node_id, contnode, fullname)
    return contnode


class ModuleReference(SphinxDirective):
    """``dpviz-module``: a module's docstring, a summary table of its ``__all__``, then each member documented.

    Each member is documented under the module that exports it (``dpviz.mechanisms.Gaussian``, not the submodule
    that defines it), so a page's names are the ones a user imports. A submodule listed in ``__all__`` (such as
    ``dpviz.learning.rates``) is documented after the other members, with its own ``__all__``.
    """

    required_arguments = 1
    option_spec = {"no-summary": directives.flag}

    def run(self):
        name = self.arguments[0]
        module = importlib.import_module(name)
        members = list(getattr(module, "__all__", []))
        if not members:
            raise self.error(f"{name} has no __all__: the reference documents exactly what a module exports")
        lines = [f".. automodule:: {name}", "   :no-members:", "", f".. currentmodule:: {name}", ""]
        plain = [m for m in members if not isinstance(getattr(module, m), types.ModuleType)]
        submodules = [m for m in members if isinstance(getattr(module, m), types.ModuleType)]
        docs = {member: _member_doc(module, member) for member in plain}
        if "no-summary" not in self.options:
            lines += [".. list-table::", "   :widths: 35 65", "   :class: dpviz-summary", ""]
            for member in plain:
                lines += [f"   * - :py:obj:`{member}`", f"     - {_first_sentence(docs[member])}"]
            lines += [""]
        for member in plain:
            obj = getattr(module, member)
            if inspect.isclass(obj):
                lines += [f".. autoclass:: {member}", "   :members:", ""]
            elif callable(obj):
                lines += [f".. autofunction:: {member}", ""]
            else:  # a constant: its "#:" comment where it is defined (autodoc would show its type's docstring)
                text = docs[member].splitlines()
                _plain_text_docstring(text)
                lines += [f".. py:data:: {member}", ""] + [f"   {line}" for line in text] + [""]
        documented = {f"{name}.{member}" for member in submodules}
        parts = [m for m in _submodules(module) if m.__name__ not in documented]
        if parts:
            lines += [".. rubric:: Where the code lives", ""]
            for part in parts:
                summary = (inspect.getdoc(part) or "").strip().split("\n\n")[0].replace("\n", " ")
                lines += [f".. py:module:: {part.__name__}", "", f"``{part.__name__}``: {_escape_text(summary)}", ""]
        for member in submodules:
            lines += [f".. dpviz-module:: {name}.{member}", ""]
        container = nodes.container()
        nested_parse_with_titles(self.state, StringList(lines, source=f"<dpviz-module {name}>"), container)
        return container.children


def setup(app):
    app.connect("autodoc-skip-member", _skip_namedtuple_fields)
    app.connect("autodoc-process-docstring", _before_napoleon, priority=400)
    app.connect("autodoc-process-docstring", _after_napoleon, priority=600)
    app.add_directive("dpviz-module", ModuleReference)
    app.connect("missing-reference", _resolve_by_import)
    return {"parallel_read_safe": True}
