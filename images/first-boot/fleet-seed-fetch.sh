#!/bin/sh
# fleet's reference first-boot fetch for a nixos-image or alpine-image node: what an image's
# first-boot service does with the fleet-seed.json that image-to-disk put on its ESP.
#
#   fleet-seed-fetch.sh --esp DIR --ca FILE --out FILE [--uuid-file FILE] [--tries N] [--delay S]
#
# It reads seedUrl and installCode from DIR/fleet-seed.json; refuses a file whose nodeUuid is not
# this machine's (a disk moved to another machine gets no seed); fetches <seedUrl>/<installCode>
# over HTTPS, trusting only the CA in FILE (the one the image ships for fleetd, never the system's);
# checks the answer is a seed document for this node (version 1, its UUID); writes it to the --out
# FILE (0600) and removes fleet-seed.json (it holds the one-time code). fleetd serves a seed once,
# counted only when the whole answer was acknowledged.
#
# Retry rule: 503 (fleetd cannot ask its inventory now; it sends Retry-After), 429 (this address
# sent fleetd too many wrong codes this minute: another machine behind it guesses) and a network
# error are tried again, every --delay seconds (default 10), up to --tries times (default 360: an hour,
# FLEET_CONFIG_TTL's default); 404 is final: the code is spent or expired, and the runbook's fix is
# a new run. Exit 0: the seed is written; 1: a final refusal; 2: no answer within the tries.
# Needs curl and jq. --connect-to HOST:PORT:HOST2:PORT2 is curl's (tests reach fleetd elsewhere).
set -eu

esp='' ca='' out='' uuid_file=/sys/class/dmi/id/product_uuid tries=360 delay=10 connect_to=''
while [ $# -gt 0 ]; do
  case "$1" in
    --esp) esp=$2; shift 2 ;;
    --ca) ca=$2; shift 2 ;;
    --out) out=$2; shift 2 ;;
    --uuid-file) uuid_file=$2; shift 2 ;;
    --tries) tries=$2; shift 2 ;;
    --delay) delay=$2; shift 2 ;;
    --connect-to) connect_to=$2; shift 2 ;;
    *) echo "fleet-seed: unknown argument $1" >&2; exit 1 ;;
  esac
done
[ -n "$esp" ] && [ -n "$ca" ] && [ -n "$out" ] || { echo 'fleet-seed: give --esp DIR --ca FILE --out FILE' >&2; exit 1; }

say() { echo "fleet-seed: $*" >&2; }
seed_file="$esp/fleet-seed.json"
[ -r "$seed_file" ] || { say "no $seed_file: this disk was not installed by fleet, or its seed was taken"; exit 1; }
seed_url=$(jq -er '.seedUrl | strings' "$seed_file") || { say "$seed_file names no seedUrl"; exit 1; }
code=$(jq -er '.installCode | strings | select(test("^[A-Za-z0-9_-]{43}$"))' "$seed_file") || { say "$seed_file holds no install code"; exit 1; }
want_uuid=$(jq -er '.nodeUuid | strings' "$seed_file") || { say "$seed_file names no nodeUuid"; exit 1; }
have_uuid=$(tr 'A-F' 'a-f' < "$uuid_file" 2>/dev/null || true)
[ "$have_uuid" = "$want_uuid" ] || { say "$seed_file is for machine $want_uuid, not this one ($have_uuid); fetching nothing"; exit 1; }

body=$(mktemp "${out}.XXXXXX")
trap 'rm -f "$body"' EXIT
n=1
while :; do
  # The code is in the URL: never echo it.
  status=$(curl --silent --show-error --cacert "$ca" --max-time 30 ${connect_to:+--connect-to "$connect_to"} \
    --output "$body" --write-out '%{http_code}' "${seed_url%/}/$code" 2>/dev/null) || status=000
  case "$status" in
    200) break ;;
    404) say "fleetd holds no seed for this node's code (spent or expired): set desired_action to provision for a new run"; exit 1 ;;
    503|429|000) ;;
    *) say "fleetd answered HTTP $status"; exit 1 ;;
  esac
  answer="HTTP $status"
  [ "$status" != 000 ] || answer='no answer'
  [ "$n" -lt "$tries" ] || { say "no seed after $tries tries ($seed_url: $answer)"; exit 2; }
  say "try $n: $answer; again in $delay s"
  n=$((n + 1))
  sleep "$delay"
done

jq -e --arg uuid "$want_uuid" '.version == 1 and .nodeUuid == $uuid and (.hostname | type == "string")' "$body" > /dev/null \
  || { say "the answer is not this node's seed document (version 1, nodeUuid $want_uuid)"; exit 1; }
umask 077
mv "$body" "$out"
rm -f "$seed_file"
say "seed written to $out for $(jq -r .hostname "$out")"
