#!/bin/sh
# runc for a privileged container in this sandbox: its capability bounding set lacks
# CAP_SYS_RESOURCE, which --privileged asks for (runc: "unable to apply caps: operation not
# permitted"), so that one capability is dropped from the bundle's config before runc reads it.
bundle=""
prev=""
for a in "$@"; do
  case "$a" in --bundle=*) bundle=${a#--bundle=} ;; esac
  if [ "$prev" = "--bundle" ] || [ "$prev" = "-b" ]; then bundle=$a; fi
  prev=$a
done
if [ -n "$bundle" ] && [ -f "$bundle/config.json" ]; then
  python3 - "$bundle/config.json" <<'PY'
import json, sys
path = sys.argv[1]
with open(path) as f:
    config = json.load(f)
caps = config.get("process", {}).get("capabilities", {})
for kind in caps:
    caps[kind] = [c for c in caps[kind] if c != "CAP_SYS_RESOURCE"]
with open(path, "w") as f:
    json.dump(config, f)
PY
fi
exec runc "$@"
