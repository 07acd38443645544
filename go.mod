module github.com/bitsh/bitsh

go 1.26.8

require (
	github.com/bazelbuild/buildtools v0.0.0-20260904073137-eaa4d125b423
	github.com/chzyer/readline v1.5.1
	github.com/creack/pty v1.1.24
	github.com/ebitengine/purego v0.11.3
	github.com/go-zeromq/zmq4 v0.17.0
	github.com/google/pprof v0.0.0-20261016150608-1facf8f91b50
	github.com/rogpeppe/go-internal v1.16.0
	github.com/sourcegraph/jsonrpc2 v0.2.0
	github.com/tetratelabs/wazero v1.12.0
	github.com/tliron/glsp v0.2.2
	go.starlark.net v0.0.0-20260908191801-89a6a09411d5
	golang.org/x/arch v0.32.0
	golang.org/x/sys v0.46.0
	golang.org/x/term v0.44.0
	gopkg.in/yaml.v3 v3.0.1
)

require (
	github.com/go-zeromq/goczmq/v4 v4.2.2 // indirect
	golang.org/x/sync v0.8.0 // indirect
	golang.org/x/text v0.15.0 // indirect
	golang.org/x/tools v0.26.0 // indirect
)

replace go.starlark.net => ./third_party/starlark
