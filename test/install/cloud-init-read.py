"""Reads a NoCloud seed directory with cloud-init's own code (Debian's cloud-init): its seed
reader, its network-config parser, and its cloud-config schema. Prints what cloud-init made of
the seed as one JSON object; a seed cloud-init cannot read exits non-zero with its error."""
import json
import sys

from cloudinit import util
from cloudinit.config.schema import get_schema, validate_cloudconfig_schema
from cloudinit.net.network_state import parse_net_config_data

seed = sys.argv[1].rstrip("/") + "/"
meta, user, _vendor = util.read_seeded(base="file://" + seed, retries=0)
state = parse_net_config_data(util.load_yaml(util.load_file(seed + "network-config")), skip_broken=False)
cloud_config = util.load_yaml(user)
validate_cloudconfig_schema(cloud_config, get_schema(), strict=True)
print(json.dumps({
    "meta": meta,
    "interfaces": [{"name": i["name"], "mac": i["mac_address"], "subnets": i["subnets"]} for i in state.iter_interfaces()],
    "nameservers": state.dns_nameservers,
    "userData": user.decode("utf-8"),
}))
