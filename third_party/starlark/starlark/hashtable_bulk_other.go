// bitsh fork: this file is not part of go.starlark.net (README.bitsh.md).

//go:build !linux

package starlark

// adviseHuge does nothing where the system has no transparent huge pages
// to ask for (hashtable_bulk_linux.go).
func adviseHuge([]entry) {}
