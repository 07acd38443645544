#!/usr/bin/env bash
# Checks the fork in third_party/starlark (third_party/starlark/README.bitsh.md):
#  1. go.starlark.net's own test suite passes in the fork, plus the fork's
#     tests of its changes (a nested module: `go test ./...` from the root
#     does not enter it);
#  2. bitsh still builds, vets and passes its interpreter and builtin tests
#     against upstream go.starlark.net, as a program that embeds bitsh gets
#     it (replace directives of a dependency do not apply): the fork is
#     API-identical and changes no result but the overflows it fixes
#     (range's length), only speed and the optional allocation check; the
#     tests of those skip against upstream.
set -euo pipefail
cd "$(dirname "$0")/.."

(cd third_party/starlark && go test ./...)

up=$(mktemp -d)
trap 'rm -rf "$up"' EXIT
go mod edit -dropreplace=go.starlark.net -print >"$up/go.mod"
cat go.sum third_party/starlark/upstream.sum >"$up/go.sum"
go build -modfile="$up/go.mod" ./...
go vet -modfile="$up/go.mod" ./...
go test -modfile="$up/go.mod" ./interp/ ./builtins/ ./examples/
if go list -modfile="$up/go.mod" -f '{{.Module.Dir}}' go.starlark.net/starlark | grep -q third_party; then
  echo "upstream.sh: the upstream build still used the fork" >&2
  exit 1
fi
echo "upstream.sh: bitsh passes against upstream go.starlark.net $(go list -modfile="$up/go.mod" -m -f '{{.Version}}' go.starlark.net)"
