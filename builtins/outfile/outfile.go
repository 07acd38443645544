// Package outfile writes a command's output file through what its path
// names: a regular file (through symbolic links) is replaced atomically, by
// a temporary file in its own directory renamed over it; a fifo, a device or
// another special file is opened and written in place, as a shell's
// redirection would.
package outfile

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
)

// maxLinks bounds the symbolic links followed, as the kernel's own limit
// (40 on Linux) does.
const maxLinks = 40

// Write writes data to what path names. A symbolic link is followed to
// the file it points to (made if missing); the link itself stays. A regular
// file is replaced through a temporary file in its directory, so that a
// reader never sees half of it and a failed write leaves it as it was; it
// keeps its permissions, and a new file gets perm. A fifo, a device or
// another file that is not regular is opened for writing and written in
// place (a fifo waits for its reader); a directory is an error.
func Write(path string, data []byte, perm fs.FileMode) error {
	target, info, err := resolve(path)
	if err != nil {
		return err
	}
	switch {
	case info == nil:
		return replace(target, data, perm)
	case info.Mode().IsRegular():
		return replace(target, data, info.Mode().Perm())
	case info.IsDir():
		return fmt.Errorf("%s is a directory", path)
	}
	return inPlace(target, data)
}

// resolve follows the symbolic links of path to what they name, and
// returns its information (nil when nothing is there yet).
func resolve(path string) (string, fs.FileInfo, error) {
	target := path
	for range maxLinks {
		info, err := os.Lstat(target)
		if errors.Is(err, fs.ErrNotExist) {
			return target, nil, nil
		}
		if err != nil {
			return "", nil, err
		}
		if info.Mode()&fs.ModeSymlink == 0 {
			return target, info, nil
		}
		link, err := os.Readlink(target)
		if err != nil {
			return "", nil, err
		}
		if !filepath.IsAbs(link) {
			link = filepath.Join(filepath.Dir(target), link)
		}
		target = link
	}
	return "", nil, fmt.Errorf("%s: more than %d symbolic links", path, maxLinks)
}

// replace writes data to a temporary file beside path and renames it over
// path.
func replace(path string, data []byte, perm fs.FileMode) error {
	f, err := os.CreateTemp(filepath.Dir(path), "."+filepath.Base(path)+".tmp*")
	if err != nil {
		return err
	}
	tmp := f.Name()
	_, err = f.Write(data)
	if err == nil {
		err = f.Chmod(perm)
	}
	if cerr := f.Close(); err == nil {
		err = cerr
	}
	if err == nil {
		err = os.Rename(tmp, path)
	}
	if err != nil {
		os.Remove(tmp)
		return err
	}
	return nil
}

// inPlace opens path, a file that is not regular, and writes data to it.
func inPlace(path string, data []byte) error {
	f, err := os.OpenFile(path, os.O_WRONLY, 0)
	if err != nil {
		return err
	}
	_, err = f.Write(data)
	if cerr := f.Close(); err == nil {
		err = cerr
	}
	return err
}
