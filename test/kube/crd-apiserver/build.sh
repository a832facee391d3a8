#!/bin/sh
# Builds crd-apiserver (main.go beside this file): Kubernetes' own CRD API server
# (k8s.io/apiextensions-apiserver) with authentication, authorization and admission off, for tests
# on loopback. Only Debian's packages are used, through a private apt configuration (the system's
# apt state is not touched): the Go toolchain and the golang-k8s-* source packages of Debian's
# unstable suite, fetched with apt-get download and unpacked with dpkg-deb -x. The mirror is the
# one the system's own apt sources name.
#   usage: build.sh [WORKDIR]   (default $TMPDIR/fleet-crd-apiserver); prints the binary's path.
# Measured on 2 cores: about 300 MB downloaded, 2 minutes cold, 1.6 GB peak memory; a rerun with
# the binary present returns at once. Run etcd beside it (Debian's etcd-server), e.g.
#   etcd --data-dir D --listen-client-urls http://127.0.0.1:P --advertise-client-urls http://127.0.0.1:P
#   crd-apiserver --etcd-servers http://127.0.0.1:P --secure-port Q --bind-address 127.0.0.1 \
#     --cert-dir C
# then apply the CRDs (the repository's testdata/tinkerbell/crd/v1alpha1/, and lease-crd.yaml for
# Leases, which this server has no built-in API for). It has no core API: no Secrets, no Namespaces.
set -eu
W=${1:-${TMPDIR:-/tmp}/fleet-crd-apiserver}
BIN=$W/bin/crd-apiserver
[ -x "$BIN" ] && { echo "$BIN"; exit 0; }
# The Debian archive the system already uses: a URI whose path ends in /debian.
mirror=$( { grep -hs '^URIs:' /etc/apt/sources.list.d/*.sources | awk '{print $2}'; grep -hs '^deb ' /etc/apt/sources.list | awk '{print $2}'; } | grep -E '/debian/?$' | head -n 1)
[ -n "$mirror" ] || { echo "build.sh: no Debian mirror in the system's apt sources" >&2; exit 1; }
mkdir -p $W/apt/lists/partial $W/apt/cache/archives/partial $W/apt/none $W/debs $W/root $W/src/crdapiserver $W/bin
echo "deb [signed-by=/usr/share/keyrings/debian-archive-keyring.gpg] $mirror sid main" > $W/apt/sources.list
cat > $W/apt/apt.conf <<C
Dir::Etc::sourcelist "$W/apt/sources.list"; Dir::Etc::sourceparts "$W/apt/none";
Dir::State::Lists "$W/apt/lists"; Dir::Cache "$W/apt/cache"; Dir::State::status "$W/apt/status";
C
touch $W/apt/status; export APT_CONFIG=$W/apt/apt.conf
apt-get update -qq
go=$(apt-cache depends golang-go | awk '/Depends: golang-[0-9.]+-go/{print $2; exit}')
[ -n "$go" ] || go=golang-1.26-go
apt-cache depends --recurse --no-recommends --no-suggests --no-conflicts --no-breaks --no-replaces --no-enhances \
  golang-k8s-apiextensions-apiserver-dev | grep -vE '^\s|^<' | grep -E '^golang-.*-dev$' | sort -u > $W/devs.txt
(cd $W/debs && apt-get download -qq $(cat $W/devs.txt) "$go" "${go%-go}-src")
for d in $W/debs/*.deb; do dpkg-deb -x "$d" $W/root; done
goroot=$(ls -d $W/root/usr/lib/go-1.* | sort -V | tail -n 1)
cp "$(dirname "$0")/main.go" $W/src/crdapiserver/main.go
cd $W/src/crdapiserver
GOROOT=$goroot GOPATH=$W:$W/root/usr/share/gocode GO111MODULE=off GOTOOLCHAIN=local GOPROXY=off GOFLAGS= \
  GOCACHE=$W/gocache CGO_ENABLED=0 "$goroot/bin/go" build -trimpath -o "$BIN" .
echo "$BIN"
