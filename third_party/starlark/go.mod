module go.starlark.net

go 1.26.8

require (
	github.com/bitsh/bitsh v0.0.0-00010101000000-000000000000
	github.com/chzyer/readline v1.5.1
	github.com/google/go-cmp v0.7.0
	golang.org/x/sys v0.46.0
	golang.org/x/term v0.44.0
	google.golang.org/protobuf v1.36.11
)

replace github.com/bitsh/bitsh => ../..
