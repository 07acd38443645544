package cuda

import (
	"bytes"
	"crypto/sha256"
	"encoding/binary"
	"encoding/hex"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"time"
)

// Cache is a folder of compiled kernels (NVRTC's PTX), so that a second
// run of a script compiles nothing. An entry is one file named by its key,
// holding a header, a SHA-256 checksum of the key and the data, and the
// data; it is written to a temporary file in the same folder and renamed,
// so that processes sharing the folder never read half an entry. An entry
// that does not check is ignored (and replaced by the next Put). The
// folder is kept under MaxBytes by removing the entries used least
// recently (a hit refreshes an entry's modification time).
//
// The design follows CuPy's kernel cache (~/.cupy/kernel_cache), which keys
// NVRTC's output by the source, options, architecture and NVRTC version and
// keeps a checksum in each file.
type Cache struct {
	Dir      string
	MaxBytes int64
}

// DefaultCacheBytes bounds the default cache (a fused function's PTX is
// some tens of kilobytes).
const DefaultCacheBytes = 256 << 20

// CacheEnv names the environment variable that moves the cache: a folder
// (kernels go in its "kernels" folder), or "off" for no cache.
const CacheEnv = "BITSH_CACHE_DIR"

// DefaultCache is the cache in the user's cache folder
// (os.UserCacheDir()/bitsh/kernels, or $BITSH_CACHE_DIR/kernels), or nil
// when BITSH_CACHE_DIR is "off" or there is no cache folder.
func DefaultCache() *Cache {
	root := os.Getenv(CacheEnv)
	switch {
	case root == "off":
		return nil
	case root == "":
		dir, err := os.UserCacheDir()
		if err != nil {
			return nil
		}
		root = filepath.Join(dir, "bitsh")
	}
	return &Cache{Dir: filepath.Join(root, "kernels"), MaxBytes: DefaultCacheBytes}
}

// KernelKey is the cache key of a kernel: a SHA-256 over its CUDA source,
// the compiler's options, the card's architecture and the versions of
// NVRTC and of the driver. Any of them changing gives another key.
func KernelKey(src string, opts []string, arch, nvrtcVersion, driverVersion string) string {
	h := sha256.New()
	part := func(s string) {
		var n [8]byte
		binary.LittleEndian.PutUint64(n[:], uint64(len(s)))
		h.Write(n[:])
		h.Write([]byte(s))
	}
	part("bitsh kernel cache 1")
	part(src)
	part(fmt.Sprint(len(opts)))
	for _, o := range opts {
		part(o)
	}
	part(arch)
	part(nvrtcVersion)
	part(driverVersion)
	return hex.EncodeToString(h.Sum(nil))
}

const (
	cacheMagic  = "bitsh-kernel-v1\n"
	cacheSuffix = ".ptx"
	tempPrefix  = ".tmp-"
	staleTemp   = time.Hour // a temporary file this old was left by a process that died
)

func (c *Cache) path(key string) string { return filepath.Join(c.Dir, key+cacheSuffix) }

func checksum(key string, data []byte) [sha256.Size]byte {
	h := sha256.New()
	h.Write([]byte(key))
	h.Write([]byte{0})
	h.Write(data)
	var s [sha256.Size]byte
	h.Sum(s[:0])
	return s
}

// validKey accepts the keys KernelKey makes (and other plain names), never
// a path.
func validKey(key string) bool {
	if key == "" || len(key) > 128 {
		return false
	}
	for _, r := range key {
		if !(r >= '0' && r <= '9' || r >= 'a' && r <= 'z' || r >= 'A' && r <= 'Z' || r == '-' || r == '_') {
			return false
		}
	}
	return true
}

// Get returns the data stored under key, or false when there is none or
// the entry does not check (truncated, altered, another key's).
func (c *Cache) Get(key string) ([]byte, bool) {
	if c == nil || !validKey(key) {
		return nil, false
	}
	b, err := os.ReadFile(c.path(key))
	if err != nil {
		return nil, false
	}
	if len(b) < len(cacheMagic)+sha256.Size || string(b[:len(cacheMagic)]) != cacheMagic {
		return nil, false
	}
	sum := b[len(cacheMagic) : len(cacheMagic)+sha256.Size]
	data := b[len(cacheMagic)+sha256.Size:]
	if want := checksum(key, data); !bytes.Equal(sum, want[:]) {
		return nil, false
	}
	now := time.Now()
	_ = os.Chtimes(c.path(key), now, now) // used: the last to be evicted
	return data, true
}

// Put stores data under key: written to a temporary file and renamed, then
// the folder trimmed to MaxBytes. Data larger than MaxBytes is not stored.
func (c *Cache) Put(key string, data []byte) error {
	if c == nil {
		return nil
	}
	if !validKey(key) {
		return fmt.Errorf("kernel cache: bad key %q", key)
	}
	size := int64(len(cacheMagic) + sha256.Size + len(data))
	if c.MaxBytes > 0 && size > c.MaxBytes {
		return nil
	}
	if err := os.MkdirAll(c.Dir, 0o755); err != nil {
		return fmt.Errorf("kernel cache: %w", err)
	}
	tmp, err := os.CreateTemp(c.Dir, tempPrefix+"*")
	if err != nil {
		return fmt.Errorf("kernel cache: %w", err)
	}
	sum := checksum(key, data)
	var buf bytes.Buffer
	buf.Grow(int(size))
	buf.WriteString(cacheMagic)
	buf.Write(sum[:])
	buf.Write(data)
	_, werr := tmp.Write(buf.Bytes())
	cerr := tmp.Close()
	if err := errors.Join(werr, cerr); err != nil {
		os.Remove(tmp.Name())
		return fmt.Errorf("kernel cache: writing %s: %w", tmp.Name(), err)
	}
	if err := os.Rename(tmp.Name(), c.path(key)); err != nil {
		os.Remove(tmp.Name())
		return fmt.Errorf("kernel cache: %w", err)
	}
	return c.trim(key)
}

// trim removes the entries used least recently until the folder holds at
// most MaxBytes, keeping keep (the entry just written); and temporary files
// that a dead process left.
func (c *Cache) trim(keep string) error {
	if c.MaxBytes <= 0 {
		return nil
	}
	ents, err := os.ReadDir(c.Dir)
	if err != nil {
		return fmt.Errorf("kernel cache: %w", err)
	}
	type entry struct {
		name string
		size int64
		mod  time.Time
	}
	var es []entry
	var total int64
	for _, e := range ents {
		info, err := e.Info()
		if err != nil || !info.Mode().IsRegular() {
			continue // removed by another process meanwhile
		}
		name := e.Name()
		if strings.HasPrefix(name, tempPrefix) {
			if time.Since(info.ModTime()) > staleTemp {
				os.Remove(filepath.Join(c.Dir, name))
			}
			continue
		}
		if !strings.HasSuffix(name, cacheSuffix) {
			continue
		}
		total += info.Size()
		if name != keep+cacheSuffix {
			es = append(es, entry{name, info.Size(), info.ModTime()})
		}
	}
	sort.Slice(es, func(i, j int) bool {
		if !es[i].mod.Equal(es[j].mod) {
			return es[i].mod.Before(es[j].mod)
		}
		return es[i].name < es[j].name
	})
	for _, e := range es {
		if total <= c.MaxBytes {
			break
		}
		if err := os.Remove(filepath.Join(c.Dir, e.name)); err != nil && !errors.Is(err, fs.ErrNotExist) {
			return fmt.Errorf("kernel cache: %w", err)
		}
		total -= e.size
	}
	return nil
}

// Load returns the data under key, or compiles it and stores it. hit says
// whether it came from the cache. A cache that cannot be written is no
// error: the compiled data is returned all the same.
func (c *Cache) Load(key string, compile func() ([]byte, error)) (data []byte, hit bool, err error) {
	if data, ok := c.Get(key); ok {
		return data, true, nil
	}
	data, err = compile()
	if err != nil {
		return nil, false, err
	}
	_ = c.Put(key, data)
	return data, false, nil
}
