#!/usr/bin/env python3
# SPDX-License-Identifier: LGPL-2.1-or-later
# Copyright (C) 2026 The gst-motion authors
"""Writes or checks the element reference (docs/elements.json, docs/elements.md).

Usage: tools/element-reference.py [--check] [--json FILE] [--md FILE] BUILDDIR

Reads every element of the plugins a build made (BUILDDIR/gst/libgst*.so)
from GStreamer's registry, the way gst-inspect-1.0 does, and the metadata
library's API from the .gir the build made (BUILDDIR/gst/motionvectors/
GstMotionVectors-1.0.gir), and writes them as sorted JSON (the role of
GStreamer's gst_plugins_cache.json; hotdoc is not in Debian 12) and as
Markdown rendered from that JSON. Defaults: docs/elements.json and
docs/elements.md of the source tree.

--check writes nothing: it compares what the build gives with the files and
prints a unified diff of each difference (exit 1). Elements the build
left out (meson options, libmosquitto missing) are not compared and are
named; the Markdown is compared with the rendering of the JSON file.

Needs PyGObject (Debian: python3-gi, gir1.2-gstreamer-1.0). Only the
build's plugins are loaded (GStreamer's system plugin path is emptied).

What the files hold, and what is left out so that every build gives the
same file (CI has no CUDA toolkit and no GPU, this machine has nvcc):
- per element: factory metadata, rank, type hierarchy, interfaces, pad
  templates (name, direction, presence, pad type, caps one structure a
  line), the properties its own classes install (type, access and
  GStreamer flags, default, range or enum/flags values, blurb) and its
  signals; properties of GStreamer's base classes (GstBaseTransform's
  qos, GstAggregator's latency, ...) are only named by their class, since
  they change between GStreamer versions;
- caps structures with the memory:CUDAMemory feature are dropped: they
  exist only in builds with gstcuda (docs/cuda-memory.md) and are stated
  once in the notes instead;
- plugin version and file paths are left out;
- of the .gir: constants, enumerations and bit fields, records with their
  public fields, methods and functions, and functions (C identifier, C
  and introspection types, direction, transfer, nullable, docs); source
  positions are left out.
"""

import argparse
import difflib
import json
import os
import sys
import tempfile
import xml.etree.ElementTree as ET

CUDA_MEMORY = "memory:CUDAMemory"

NOTES = [
    "Properties are those the element's own classes install; the "
    "properties of its GStreamer base class (`base-class`) are those of "
    "the GStreamer version in use (gst-inspect-1.0 lists them).",
    "Builds with CUDA memory (the CUDA backend and gstreamer-cuda-1.0, "
    "docs/cuda-memory.md) put `video/x-raw(" + CUDA_MEMORY + ")` with the "
    "formats GRAY8, I420, YV12, NV12, NV21, Y41B, Y42B, Y444 before the "
    "system-memory caps of blockmatchme's and pocme's pads; those caps are "
    "not listed here.",
    "Defaults are those of the property specifications; read-only "
    "properties report state (e.g. `active-backend`).",
]

# GParamFlags and GstParamFlags bits, in the order they are printed.
PARAM_FLAGS = [
    (1 << 0, "readable"),
    (1 << 1, "writable"),
    (1 << 2, "construct"),
    (1 << 3, "construct-only"),
    (1 << 9, "controllable"),
    (1 << 10, "mutable-ready"),
    (1 << 11, "mutable-paused"),
    (1 << 12, "mutable-playing"),
    (1 << 13, "doc-show-default"),
    (1 << 14, "conditionally-available"),
    (1 << 31, "deprecated"),
]

GIR_NS = {
    "core": "http://www.gtk.org/introspection/core/1.0",
    "c": "http://www.gtk.org/introspection/c/1.0",
    "glib": "http://www.gtk.org/introspection/glib/1.0",
}


def c_attr(el, name):
    return el.get("{%s}%s" % (GIR_NS["c"], name))


def import_gst(plugin_dir):
    """Gst, GObject and the GI modules of GStreamer's libraries, with only
    the plugins of plugin_dir in a throw-away registry."""
    registry = tempfile.NamedTemporaryFile(prefix="element-reference-", suffix=".reg", delete=False)
    registry.close()
    os.environ["GST_REGISTRY_1_0"] = registry.name
    os.environ["GST_REGISTRY"] = registry.name
    os.environ["GST_PLUGIN_SYSTEM_PATH_1_0"] = ""
    os.environ["GST_PLUGIN_SYSTEM_PATH"] = ""
    os.environ["GST_PLUGIN_PATH_1_0"] = plugin_dir
    os.environ["GST_PLUGIN_PATH"] = plugin_dir
    try:
        import gi
    except ImportError:
        raise SystemExit("element-reference: %s has no PyGObject (Debian: python3-gi); try /usr/bin/python3" % sys.executable)

    gi.require_version("Gst", "1.0")
    gi.require_version("GstBase", "1.0")
    from gi.repository import GObject, Gst, GstBase

    libs = [Gst, GstBase]
    for name in ("GstVideo", "GstAudio", "GstRtp"):
        try:
            gi.require_version(name, "1.0")
            libs.append(__import__("gi.repository." + name, fromlist=[name]))
        except (ValueError, ImportError):
            pass
    Gst.init(None)
    os.unlink(registry.name)
    return Gst, GObject, libs


def library_type(gtype, libs):
    """True when gtype is a class of a GStreamer library (GstBaseTransform,
    GstElement, ...), not one of the project's."""
    name = gtype.name
    if not name.startswith("Gst"):
        return True  # GObject, GInitiallyUnowned
    for mod in libs:
        cls = getattr(mod, name[3:], None)
        if cls is not None and getattr(cls, "__gtype__", None) == gtype:
            return True
    return False


def flag_names(flags):
    return [name for bit, name in PARAM_FLAGS if int(flags) & bit]


def enum_values(GObject, pspec):
    """[{value, nick, name}] of an enum or flags property's type.

    PyGObject 3.42 (Debian 12) gives pspec.enum_class / flags_class as the
    Python class of the type (__enum_values__ / __flags_values__), 3.50
    (Debian 13) as the GEnumClass / GFlagsClass structure."""
    is_flags = pspec.value_type.is_a(GObject.TYPE_FLAGS)
    klass = pspec.flags_class if is_flags else pspec.enum_class
    values = getattr(klass, "__flags_values__" if is_flags else "__enum_values__", None)
    if values is not None:
        return [{"value": int(v), "nick": values[v].value_nick, "name": values[v].value_name} for v in sorted(values)]
    out = []
    if is_flags:
        candidates = [0] + [1 << bit for bit in range(32) if klass.mask & (1 << bit)]
        get = GObject.flags_get_first_value
    else:
        candidates = range(klass.minimum, klass.maximum + 1)
        get = GObject.enum_get_value
    for v in candidates:
        ev = get(klass, v)
        if ev is not None and ev.value == v:
            out.append({"value": v, "nick": ev.value_nick, "name": ev.value_name})
    return out


def property_entry(GObject, pspec):
    vt = pspec.value_type
    fundamental = vt.fundamental.name
    entry = {
        "type": vt.name,
        "flags": flag_names(pspec.flags),
        "blurb": pspec.blurb,
        "nick": pspec.nick,
    }
    # Boxed and object specs have no default_value on PyGObject 3.50
    # (Debian 13); their default is not serialised anyway.
    default = getattr(pspec, "default_value", None)
    if vt.is_a(GObject.TYPE_ENUM):
        # An enum member (PyGObject 3.42) or a plain int (3.50).
        entry["values"] = enum_values(GObject, pspec)
        entry["default"] = next((e["nick"] for e in entry["values"] if e["value"] == int(default)), None)
    elif vt.is_a(GObject.TYPE_FLAGS):
        entry["values"] = enum_values(GObject, pspec)
        v = int(default) if default is not None else 0
        entry["default"] = "+".join(e["nick"] for e in entry["values"] if e["value"] and (v & e["value"]) == e["value"])
    elif fundamental in ("gint", "guint", "glong", "gulong", "gint64", "guint64", "gfloat", "gdouble", "gchar", "guchar"):
        entry["minimum"] = pspec.minimum
        entry["maximum"] = pspec.maximum
        entry["default"] = default
    elif fundamental in ("gboolean", "gchararray"):
        entry["default"] = default
    else:
        entry["default"] = None  # objects, boxed: no serialisable default
    return entry


def caps_lines(caps):
    """The caps one structure a line (features included), CUDA memory
    dropped; returns (lines, dropped)."""
    if caps.is_any():
        return ["ANY"], 0
    if caps.is_empty():
        return ["EMPTY"], 0
    lines = []
    dropped = 0
    for i in range(caps.get_size()):
        features = caps.get_features(i)
        if features is not None and features.contains(CUDA_MEMORY):
            dropped += 1
            continue
        one = caps.copy_nth(i)
        lines.append(one.to_string())
    return lines, dropped


def element_entry(Gst, GObject, libs, factory, dropped):
    element = factory.create(None)
    if element is None:
        raise SystemExit("element-reference: cannot create " + factory.get_name())
    gtype = type(element).__gtype__
    hierarchy = []
    own = []
    t = gtype
    while t is not None and t.name != "GObject":
        hierarchy.append(t.name)
        if not library_type(t, libs):
            own.append(t)
        t = t.parent
    base = next((name for name in hierarchy if name not in [o.name for o in own]), None)
    entry = {
        "long-name": factory.get_metadata("long-name"),
        "klass": factory.get_metadata("klass"),
        "description": factory.get_metadata("description"),
        "author": factory.get_metadata("author"),
        "rank": int(factory.get_rank()),
        "hierarchy": hierarchy,
        "base-class": base,
        "interfaces": sorted(i.name for i in GObject.type_interfaces(gtype)),
    }
    pads = {}
    for templ in element.get_pad_template_list():
        lines, n = caps_lines(templ.get_caps())
        if n:
            dropped.append("%s:%s" % (factory.get_name(), templ.name_template))
        pad = {
            "direction": templ.direction.value_nick,
            "presence": templ.presence.value_nick,
            "caps": lines,
        }
        pad_type = templ.get_property("gtype")
        if pad_type is not None and pad_type.name not in ("void", "GstPad"):
            pad["type"] = pad_type.name
        pads[templ.name_template] = pad
    entry["pads"] = pads
    own_names = [o.name for o in own]
    props = {}
    for pspec in element.list_properties():
        if pspec.owner_type.name in own_names:
            props[pspec.name] = property_entry(GObject, pspec)
    entry["properties"] = props
    signals = {}
    for t in own:
        for sid in GObject.signal_list_ids(t):
            q = GObject.signal_query(sid)
            signals[q.signal_name] = {
                "return-type": q.return_type.name,
                "parameters": [p.name for p in q.param_types],
                "action": bool(int(q.signal_flags) & int(GObject.SignalFlags.ACTION)),
            }
    entry["signals"] = signals
    element.set_state(Gst.State.NULL)
    return entry


def registry_part(build_dir):
    plugin_dir = os.path.join(build_dir, "gst")
    Gst, GObject, libs = import_gst(plugin_dir)
    plugins = {}
    dropped = []
    for plugin in Gst.Registry.get().get_plugin_list():
        filename = plugin.get_filename()
        if not filename or os.path.dirname(os.path.abspath(filename)) != os.path.abspath(plugin_dir):
            continue
        if plugin.get_license() == "BLACKLIST":
            continue  # libgstmotionvectors: a library, not a plugin
        elements = {}
        for feature in Gst.Registry.get().get_feature_list_by_plugin(plugin.get_name()):
            if isinstance(feature, Gst.ElementFactory):
                factory = Gst.ElementFactory.find(feature.get_name())
                elements[feature.get_name()] = element_entry(Gst, GObject, libs, factory, dropped)
        plugins[plugin.get_name()] = {
            "filename": os.path.basename(filename),
            "description": plugin.get_description(),
            "license": plugin.get_license(),
            "source": plugin.get_source(),
            "package": plugin.get_package(),
            "origin": plugin.get_origin(),
            "elements": elements,
        }
    if not plugins:
        raise SystemExit("element-reference: no plugin in " + plugin_dir)
    return plugins, sorted(dropped)


def gir_type(el):
    """{type (C), gir-type} of a parameter, field or return value."""
    t = el.find("core:type", GIR_NS)
    a = el.find("core:array", GIR_NS)
    if a is not None:
        inner = a.find("core:type", GIR_NS)
        out = {"type": c_attr(a, "type") or "", "gir-type": "array of " + (inner.get("name") if inner is not None else "?")}
        if a.get("length") is not None:
            out["length-parameter"] = int(a.get("length"))
        if a.get("fixed-size") is not None:
            out["fixed-size"] = int(a.get("fixed-size"))
        return out
    if t is not None:
        return {"type": c_attr(t, "type") or t.get("name"), "gir-type": t.get("name")}
    if el.find("core:varargs", GIR_NS) is not None:
        return {"type": "...", "gir-type": "varargs"}
    return {"type": "", "gir-type": ""}


def doc_of(el):
    d = el.find("core:doc", GIR_NS)
    return d.text.strip() if d is not None and d.text else ""


def gir_callable(el):
    out = {"c-identifier": c_attr(el, "identifier"), "doc": doc_of(el)}
    if el.get("introspectable") == "0":
        out["introspectable"] = False
    if el.get("throws") == "1":
        out["throws"] = True
    params = []
    ps = el.find("core:parameters", GIR_NS)
    if ps is not None:
        for p in ps:
            tag = p.tag.split("}")[1]
            if tag not in ("parameter", "instance-parameter"):
                continue
            entry = {"name": p.get("name"), "doc": doc_of(p)}
            entry.update(gir_type(p))
            if tag == "instance-parameter":
                entry["instance"] = True
            for attr in ("direction", "transfer-ownership"):
                if p.get(attr):
                    entry[attr] = p.get(attr)
            for attr in ("nullable", "optional", "allow-none", "caller-allocates"):
                if p.get(attr) == "1":
                    entry[attr] = True
            params.append(entry)
    out["parameters"] = params
    rv = el.find("core:return-value", GIR_NS)
    if rv is not None:
        ret = {"doc": doc_of(rv)}
        ret.update(gir_type(rv))
        if rv.get("transfer-ownership"):
            ret["transfer-ownership"] = rv.get("transfer-ownership")
        if rv.get("nullable") == "1":
            ret["nullable"] = True
        out["return"] = ret
    return out


def gir_part(gir_path):
    root = ET.parse(gir_path).getroot()
    ns = root.find("core:namespace", GIR_NS)
    pkg = root.find("core:package", GIR_NS)
    inc = root.find("c:include", GIR_NS)
    lib = {
        "namespace": ns.get("name"),
        "version": ns.get("version"),
        "shared-library": ns.get("shared-library"),
        "package": pkg.get("name") if pkg is not None else None,
        "c-include": inc.get("name") if inc is not None else None,
        "includes": sorted("%s-%s" % (i.get("name"), i.get("version")) for i in root.findall("core:include", GIR_NS)),
        "constants": {},
        "enumerations": {},
        "records": {},
        "functions": {},
    }
    for el in ns:
        tag = el.tag.split("}")[1]
        name = el.get("name")
        if tag == "constant":
            entry = {"c-name": c_attr(el, "type"), "value": el.get("value"), "doc": doc_of(el)}
            entry.update(gir_type(el))
            lib["constants"][name] = entry
        elif tag in ("enumeration", "bitfield"):
            members = []
            for m in el.findall("core:member", GIR_NS):
                members.append({"name": m.get("name"), "c-identifier": c_attr(m, "identifier"), "value": int(m.get("value")), "doc": doc_of(m)})
            lib["enumerations"][name] = {"kind": tag, "c-type": c_attr(el, "type"), "doc": doc_of(el), "members": members}
        elif tag == "record":
            fields = []
            for f in el.findall("core:field", GIR_NS):
                if f.get("private") == "1" or f.get("name", "").startswith("_"):
                    continue
                entry = {"name": f.get("name"), "doc": doc_of(f)}
                entry.update(gir_type(f))
                entry["writable"] = f.get("writable") == "1"
                fields.append(entry)
            rec = {"c-type": c_attr(el, "type"), "doc": doc_of(el), "fields": fields, "methods": {}, "functions": {}}
            for m in el.findall("core:method", GIR_NS):
                rec["methods"][m.get("name")] = gir_callable(m)
            for m in el.findall("core:function", GIR_NS) + el.findall("core:constructor", GIR_NS):
                rec["functions"][m.get("name")] = gir_callable(m)
            lib["records"][name] = rec
        elif tag == "function":
            lib["functions"][name] = gir_callable(el)
    return lib


def generate(build_dir, gir_path):
    plugins, dropped = registry_part(build_dir)
    ref = {
        "format": 1,
        "project": "gst-motion",
        "notes": NOTES,
        "plugins": plugins,
        "library": gir_part(gir_path) if gir_path else None,
    }
    return ref, dropped


def dump(ref):
    return json.dumps(ref, indent=2, sort_keys=True, ensure_ascii=False) + "\n"


# ---------------------------------------------------------------- Markdown


def md_escape(text):
    """One line of table-safe text: whitespace runs collapsed, | escaped."""
    return " ".join((text or "").split()).replace("|", "\\|")


def md_value(p):
    v = p["default"]
    if "values" in p:
        return "`%s`" % v if v else "—"
    if v is None:
        return "—"
    if isinstance(v, bool):
        return "`%s`" % str(v).lower()
    if isinstance(v, str):
        return '`"%s"`' % v if v else '`""`'
    return "`%s`" % v


def md_range(p):
    if "minimum" in p:
        return "%s – %s" % (p["minimum"], p["maximum"])
    if "values" in p:
        return ", ".join("`%s`" % e["nick"] for e in p["values"])
    return ""


def md_access(p):
    f = p["flags"]
    rw = ("r" if "readable" in f else "") + ("w" if "writable" in f else "")
    extra = [x for x in f if x not in ("readable", "writable")]
    return rw + (" (" + ", ".join(extra) + ")" if extra else "")


def md_callable(name, c, lines):
    params = []
    for p in c["parameters"]:
        params.append("%s %s" % (p["type"], p["name"]))
    ret = c.get("return", {}).get("type", "void")
    lines.append("- `%s %s (%s)`" % (ret, c["c-identifier"], ", ".join(params)))
    if c["doc"]:
        lines.append("  " + md_escape(c["doc"].split("\n\n")[0]))


def render_md(ref):
    out = [
        "<!-- Generated by tools/element-reference.py from docs/elements.json: do not edit. -->",
        "# Element reference",
        "",
        "Every element of the project's plugins as GStreamer's registry",
        "describes it, and the API of the metadata library",
        "`libgstmotionvectors-1.0`, generated from a build by",
        "`tools/element-reference.py` (the machine-readable form is",
        "[elements.json](elements.json)). The test `element_reference` fails",
        "when a build and these files differ; regenerate them with",
        "`python3 tools/element-reference.py build`. Each element's own page",
        "(e.g. [blockmatchme.md](blockmatchme.md)) explains what the",
        "properties do.",
        "",
    ]
    for n in ref["notes"]:
        out.append("- " + n)
    out.append("")
    for pname in sorted(ref["plugins"]):
        pl = ref["plugins"][pname]
        out += ["## Plugin %s" % pname, "", "%s (`%s`, %s)." % (pl["description"], pl["filename"], pl["license"]), ""]
        for ename in sorted(pl["elements"]):
            e = pl["elements"][ename]
            out += ["### %s" % ename, "", "**%s** — %s" % (e["long-name"], e["description"]), ""]
            out.append("Class `%s`; rank %d; %s." % (e["klass"], e["rank"], " → ".join("`%s`" % h for h in e["hierarchy"])))
            if e["interfaces"]:
                out.append("Interfaces: %s." % ", ".join("`%s`" % i for i in e["interfaces"]))
            out.append("")
            out += ["Pads:", ""]
            for padname in sorted(e["pads"]):
                pad = e["pads"][padname]
                typ = " (`%s`)" % pad["type"] if "type" in pad else ""
                out.append("- `%s`: %s, %s%s" % (padname, pad["direction"], pad["presence"], typ))
                out.append("")
                out.append("  ```")
                for c in pad["caps"]:
                    out.append("  " + c)
                out.append("  ```")
                out.append("")
            props = e["properties"]
            base = e["base-class"]
            if props:
                out += [
                    "Properties (and those of `%s`):" % base,
                    "",
                    "| property | type | default | range / values | access | description |",
                    "|---|---|---|---|---|---|",
                ]
                for prop in sorted(props):
                    p = props[prop]
                    out.append(
                        "| `%s` | %s | %s | %s | %s | %s |"
                        % (prop, p["type"], md_value(p), md_range(p), md_access(p), md_escape(p["blurb"]))
                    )
                out.append("")
                enums = [(k, p) for k, p in sorted(props.items()) if "values" in p]
                for k, p in enums:
                    vals = "; ".join("`%s` (%d): %s" % (v["nick"], v["value"], v["name"]) for v in p["values"])
                    out.append("- `%s` (%s): %s" % (k, p["type"], md_escape(vals)))
                if enums:
                    out.append("")
            else:
                out += ["Properties: those of `%s`." % base, ""]
            if e["signals"]:
                out += ["Signals:", ""]
                for s in sorted(e["signals"]):
                    sig = e["signals"][s]
                    out.append("- `%s` (%s) → %s%s" % (s, ", ".join(sig["parameters"]), sig["return-type"], ", action" if sig["action"] else ""))
                out.append("")
    lib = ref["library"]
    if lib:
        out += [
            "## Library %s-%s" % (lib["namespace"], lib["version"]),
            "",
            "`#include <%s>`, pkg-config `%s`, `%s`; GObject introspection namespace `%s` %s." % (lib["c-include"], lib["package"], lib["shared-library"], lib["namespace"], lib["version"]),
            "",
            "### Constants",
            "",
        ]
        for name in sorted(lib["constants"]):
            c = lib["constants"][name]
            out.append("- `%s` = `%s`: %s" % (c["c-name"], c["value"], md_escape(c["doc"])))
        out.append("")
        out += ["### Enumerations and flags", ""]
        for name in sorted(lib["enumerations"]):
            en = lib["enumerations"][name]
            doc = md_escape(en["doc"].split("\n\n")[0])
            out.append("- `%s` (%s)%s" % (en["c-type"], en["kind"], ": " + doc if doc else ""))
            for m in en["members"]:
                out.append("  - `%s` = %d: %s" % (m["c-identifier"], m["value"], md_escape(m["doc"])))
        out.append("")
        for name in sorted(lib["records"]):
            r = lib["records"][name]
            out += ["### %s" % r["c-type"], ""]
            if r["doc"]:
                out += [md_escape(r["doc"].split("\n\n")[0]), ""]
            if r["fields"]:
                out += ["| field | type | description |", "|---|---|---|"]
                for f in r["fields"]:
                    out.append("| `%s` | `%s` | %s |" % (f["name"], f["type"], md_escape(f["doc"])))
                out.append("")
            if r["methods"] or r["functions"]:
                for m in sorted(r["methods"]):
                    md_callable(m, r["methods"][m], out)
                for m in sorted(r["functions"]):
                    md_callable(m, r["functions"][m], out)
                out.append("")
        out += ["### Functions", ""]
        for name in sorted(lib["functions"]):
            md_callable(name, lib["functions"][name], out)
        out.append("")
    return "\n".join(out).rstrip("\n") + "\n"


# ------------------------------------------------------------------- main


def differences(old, new, path=""):
    """'path: committed X, build Y' for each value that differs."""
    if isinstance(old, dict) and isinstance(new, dict):
        out = []
        for k in sorted(set(old) | set(new)):
            p = path + "." + k if path else k
            if k not in new:
                out.append("%s: in the file, not in the build" % p)
            elif k not in old:
                out.append("%s: in the build, not in the file" % p)
            else:
                out += differences(old[k], new[k], p)
        return out
    if old != new:
        return ["%s: file %s, build %s" % (path, json.dumps(old, ensure_ascii=False)[:200], json.dumps(new, ensure_ascii=False)[:200])]
    return []


def diff(old, new, old_name, new_name):
    return "".join(difflib.unified_diff(old.splitlines(True), new.splitlines(True), old_name, new_name))


def main():
    root = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("build_dir")
    ap.add_argument("--json", default=os.path.join(root, "docs", "elements.json"))
    ap.add_argument("--md", default=os.path.join(root, "docs", "elements.md"))
    ap.add_argument("--gir", help="the .gir (default: the build's GstMotionVectors-1.0.gir)")
    ap.add_argument("--check", action="store_true")
    args = ap.parse_args()
    gir = args.gir or os.path.join(args.build_dir, "gst", "motionvectors", "GstMotionVectors-1.0.gir")
    if not os.path.exists(gir):
        if args.check:
            print("SKIP: no %s (a build without introspection)" % gir)
            sys.exit(77)
        raise SystemExit("element-reference: no " + gir + " (build with -Dintrospection=enabled)")
    ref, dropped = generate(args.build_dir, gir)
    for d in dropped:
        print("note: %s: memory:CUDAMemory caps left out (a build with gstcuda)" % d)
    if not args.check:
        with open(args.json, "w", encoding="utf-8") as f:
            f.write(dump(ref))
        with open(args.md, "w", encoding="utf-8") as f:
            f.write(render_md(ref))
        n = sum(len(p["elements"]) for p in ref["plugins"].values())
        print("element-reference: %d elements of %d plugins -> %s, %s" % (n, len(ref["plugins"]), args.json, args.md))
        return

    with open(args.json, encoding="utf-8") as f:
        committed = json.load(f)
    bad = False
    # Elements a build left out are compared by name only: drop them (and
    # plugins left empty) from the committed copy.
    built = {e for p in ref["plugins"].values() for e in p["elements"]}
    expected = json.loads(json.dumps(committed))
    for pname in list(expected["plugins"]):
        els = expected["plugins"][pname]["elements"]
        for ename in list(els):
            if ename not in built:
                print("not built here, not compared: %s (plugin %s)" % (ename, pname))
                del els[ename]
        if not els:
            del expected["plugins"][pname]
    if not built:
        print("FAIL: the build has no element")
        bad = True
    d = diff(dump(expected), dump(ref), args.json + " (committed)", args.json + " (this build)")
    if d:
        print("FAIL: the registry and %s differ:" % args.json)
        for line in differences(expected, ref):
            print("  " + line)
        print(d)
        bad = True
    with open(args.md, encoding="utf-8") as f:
        md = f.read()
    d = diff(md, render_md(committed), args.md + " (committed)", args.md + " (rendered from the JSON)")
    if d:
        print("FAIL: %s is not the rendering of %s:" % (args.md, args.json))
        print(d)
        bad = True
    if bad:
        print("To update both: python3 tools/element-reference.py BUILDDIR (then review and commit)")
        sys.exit(1)
    print("ok: %d elements and the library's API equal %s; %s is its rendering" % (len(built), args.json, args.md))


if __name__ == "__main__":
    main()
