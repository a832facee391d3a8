#!/bin/sh
# Builds tink-render (render/ beside this file): Tinkerbell's Template rendering and Workflow
# validation, for tests. Only Debian's packages are used, through a private apt configuration (the
# system's apt state is not touched): the Go toolchain and the golang-*-dev source packages of
# Debian's unstable suite (Sprig, yaml.v3, sigs.k8s.io/yaml, distribution/reference), fetched with
# apt-get download and unpacked with dpkg-deb -x, built in GOPATH mode with no network. The Go
# toolchain test/kube/crd-apiserver/build.sh unpacked is reused when it is there.
#   usage: build.sh [WORKDIR]   (default $TMPDIR/fleet-tink-render); prints the binary's path.
# The binary is named by a hash of the Go sources: an edit rebuilds, a rerun returns at once.
set -eu
here=$(cd "$(dirname "$0")" && pwd)
W=${1:-${TMPDIR:-/tmp}/fleet-tink-render}
hash=$(cd "$here/render" && find . -name '*.go' | LC_ALL=C sort | xargs cat | sha256sum | cut -c1-16)
BIN=$W/bin/tink-render-$hash
[ -x "$BIN" ] && { echo "$BIN"; exit 0; }
mkdir -p $W/bin
# One build at a time per work dir (test workers may ask at once); the winner's binary serves all.
exec 9>$W/lock
flock 9
[ -x "$BIN" ] && { echo "$BIN"; exit 0; }
echo "build.sh: building tink-render from Debian's packages in $W" >&2
# Debian's packages holding the Go source that rendering and validation use (their deps follow).
DEVS="golang-github-masterminds-sprig-dev golang-gopkg-yaml.v3-dev golang-k8s-sigs-yaml-dev golang-github-distribution-reference-dev"
apt_ready=
apt_setup() {
  [ -n "$apt_ready" ] && return 0
  # The Debian archive the system already uses: a URI whose path ends in /debian.
  mirror=$( { grep -hs '^URIs:' /etc/apt/sources.list.d/*.sources | awk '{print $2}'; grep -hs '^deb ' /etc/apt/sources.list | awk '{print $2}'; } | grep -E '/debian/?$' | head -n 1)
  [ -n "$mirror" ] || { echo "build.sh: no Debian mirror in the system's apt sources" >&2; exit 1; }
  mkdir -p $W/apt/lists/partial $W/apt/cache/archives/partial $W/apt/none
  echo "deb [signed-by=/usr/share/keyrings/debian-archive-keyring.gpg] $mirror sid main" > $W/apt/sources.list
  cat > $W/apt/apt.conf <<C
Dir::Etc::sourcelist "$W/apt/sources.list"; Dir::Etc::sourceparts "$W/apt/none";
Dir::State::Lists "$W/apt/lists"; Dir::Cache "$W/apt/cache"; Dir::State::status "$W/apt/status";
APT::Sandbox::User "$(id -un)";
C
  touch $W/apt/status; export APT_CONFIG=$W/apt/apt.conf
  apt-get update -qq
  apt_ready=1
}
# download DIR PACKAGE...: fetched and unpacked into DIR/root, then DIR/root/.complete.
download() {
  dir=$1; shift
  rm -rf $dir && mkdir -p $dir/debs $dir/root
  (cd $dir/debs && apt-get download -qq "$@")
  for d in $dir/debs/*.deb; do dpkg-deb -x "$d" $dir/root; done
  touch $dir/root/.complete
}
newest_go() { ls -d "$1"/root/usr/lib/go-1.* 2>/dev/null | sort -V | tail -n 1; }
if [ ! -e $W/src-debs/root/.complete ]; then
  apt_setup
  apt-cache depends --recurse --no-recommends --no-suggests --no-conflicts --no-breaks --no-replaces --no-enhances \
    $DEVS | grep -vE '^\s|^<' | grep -E '^golang-.*-dev$' | sort -u > $W/devs.txt
  download $W/src-debs $(cat $W/devs.txt)
fi
# The toolchain: our own, else the CRD server's, else fetched.
goroot=
[ -e $W/go/root/.complete ] && goroot=$(newest_go $W/go)
if [ -z "$goroot" ]; then
  g=$(newest_go ${TMPDIR:-/tmp}/fleet-crd-apiserver)
  [ -n "$g" ] && [ -x "$g/bin/go" ] && [ -d "$g/src/text/template" ] && goroot=$g
fi
if [ -z "$goroot" ]; then
  apt_setup
  go=$(apt-cache depends golang-go | awk '/Depends: golang-[0-9.]+-go/{print $2; exit}')
  [ -n "$go" ] || go=golang-1.27-go
  download $W/go "$go" "${go%-go}-src"
  goroot=$(newest_go $W/go)
fi
# GOPATH mode: the program is the package tinkrender, its own packages beneath it.
rm -rf $W/src/tinkrender && mkdir -p $W/src && cp -r "$here/render" $W/src/tinkrender
cd $W/src/tinkrender
GOROOT=$goroot GOPATH=$W:$W/src-debs/root/usr/share/gocode GO111MODULE=off GOTOOLCHAIN=local GOPROXY=off GOFLAGS= \
  GOCACHE=$W/gocache CGO_ENABLED=0 "$goroot/bin/go" build -trimpath -o "$BIN.tmp" . || { echo "build.sh: go build failed (above)" >&2; exit 1; }
mv "$BIN.tmp" "$BIN"
echo "$BIN"
