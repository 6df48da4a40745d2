#!/usr/bin/env python3
"""kueue_validate.py - checks a YAML stream of Kueue objects (gq policy
export kueue) against Kueue's own CustomResourceDefinitions.

For every document: apiVersion is GROUP/VERSION of the CRD whose kind it
names, that version is served, and the object validates against that
version's openAPIV3Schema (jsonschema). Then what the API server checks
beyond the schema and gq relies on: names are RFC 1123 names, the CEL rules
of a ClusterQueue's resourceGroups and preemption, and every reference (a
ClusterQueue's flavors and cohort, a LocalQueue's ClusterQueue) names an
object of the stream.

  kueue_validate.py FILE      one line per problem on stderr; exit 0 when
                              there is none, 1 when there is, 77 when the
                              CRDs are not found (a skip, said on stdout)

The CRDs come from $GQ_KUEUE_CRDS when it is set, else ../shared/kueue/crds beside the
checkout (the repository is cloned next to shared/), else
/work/shared/kueue/crds.
"""
import os
import re
import sys

import jsonschema
import yaml

LABEL = re.compile(r"^[a-z0-9]([-a-z0-9]*[a-z0-9])?$")
SUBDOMAIN = re.compile(r"^[a-z0-9]([-a-z0-9]*[a-z0-9])?(\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*$")
NAMESPACED = {"LocalQueue"}


def crd_dir():
    if os.environ.get("GQ_KUEUE_CRDS"):
        d = os.environ["GQ_KUEUE_CRDS"]
        return d if os.path.isdir(d) else None
    here = os.path.dirname(os.path.abspath(__file__))
    for d in (os.path.join(here, "..", "..", "shared", "kueue", "crds"),
              "/work/shared/kueue/crds"):
        if d and os.path.isdir(d):
            return os.path.normpath(d)
    return None


def load_crds(d):
    crds = {}
    for f in sorted(os.listdir(d)):
        if not f.endswith(".yaml"):
            continue
        with open(os.path.join(d, f)) as fh:
            c = yaml.safe_load(fh)
        if c and c.get("kind") == "CustomResourceDefinition":
            crds[c["spec"]["names"]["kind"]] = c
    return crds


def check(docs, crds):
    bad = []
    seen = {}
    for i, o in enumerate(docs):
        where = "document %d" % (i + 1)
        if not isinstance(o, dict):
            bad.append("%s: not a mapping" % where)
            continue
        kind = o.get("kind")
        name = (o.get("metadata") or {}).get("name")
        where = "%s (%s %s)" % (where, kind, name)
        c = crds.get(kind)
        if not c:
            bad.append("%s: kind %r is not a Kueue CRD" % (where, kind))
            continue
        group, _, version = str(o.get("apiVersion", "")).partition("/")
        if group != c["spec"]["group"]:
            bad.append("%s: apiVersion group %r, want %r" % (where, group, c["spec"]["group"]))
            continue
        vs = [v for v in c["spec"]["versions"] if v["name"] == version and v.get("served")]
        if not vs:
            bad.append("%s: version %r is not served" % (where, version))
            continue
        schema = vs[0]["schema"]["openAPIV3Schema"]
        for e in jsonschema.Draft7Validator(schema).iter_errors(o):
            path = ".".join(str(p) for p in e.absolute_path)
            bad.append("%s: %s: %s" % (where, path or "(top)", e.message))
        if not isinstance(name, str) or len(name) > 253 or not SUBDOMAIN.match(name):
            bad.append("%s: metadata.name %r is not an RFC 1123 name" % (where, name))
        ns = o.get("metadata", {}).get("namespace")
        if kind in NAMESPACED:
            if not isinstance(ns, str) or len(ns) > 63 or not LABEL.match(ns):
                bad.append("%s: metadata.namespace %r is not an RFC 1123 label" % (where, ns))
        elif ns is not None:
            bad.append("%s: a cluster-scoped object has a namespace" % where)
        key = (kind, ns, name)
        if key in seen:
            bad.append("%s: a second object of that name" % where)
        seen[key] = o
    names = {k: {n for (kk, _, n) in seen if kk == k} for k in crds}
    for (kind, _, name), o in seen.items():
        spec = o.get("spec") or {}
        where = "%s %s" % (kind, name)
        if kind in ("ClusterQueue", "Cohort"):
            for g in spec.get("resourceGroups", []):
                for f in g.get("flavors", []):
                    # CEL: every flavor lists every covered resource.
                    if len(f.get("resources", [])) != len(g.get("coveredResources", [])):
                        bad.append("%s: flavor %s: resources differ from coveredResources"
                                   % (where, f.get("name")))
                    if f.get("name") not in names["ResourceFlavor"]:
                        bad.append("%s: no ResourceFlavor %s" % (where, f.get("name")))
        if kind == "ClusterQueue":
            p = spec.get("preemption", {})
            if p.get("reclaimWithinCohort", "Never") == "Never" and \
                    p.get("borrowWithinCohort", {}).get("policy", "Never") != "Never":
                bad.append("%s: borrowWithinCohort without reclaimWithinCohort" % where)
            if spec.get("cohort") and spec["cohort"] not in names["Cohort"]:
                bad.append("%s: no Cohort %s" % (where, spec["cohort"]))
        if kind == "LocalQueue" and spec.get("clusterQueue") not in names["ClusterQueue"]:
            bad.append("%s: no ClusterQueue %s" % (where, spec.get("clusterQueue")))
    return bad


def main():
    if len(sys.argv) != 2:
        print("usage: kueue_validate.py FILE", file=sys.stderr)
        return 2
    d = crd_dir()
    if not d:
        print("Kueue's CRDs not found (set GQ_KUEUE_CRDS or clone beside shared/)")
        return 77
    crds = load_crds(d)
    with open(sys.argv[1]) as fh:
        docs = [x for x in yaml.safe_load_all(fh) if x is not None]
    if not docs:
        print("no object in %s" % sys.argv[1], file=sys.stderr)
        return 1
    bad = check(docs, crds)
    for b in bad:
        print(b, file=sys.stderr)
    return 1 if bad else 0


if __name__ == "__main__":
    sys.exit(main())
