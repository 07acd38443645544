package cuda

import (
	"bytes"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/bitsh/bitsh/internal/testscale"
)

// fakeCompiler stands for NVRTC: it counts its calls and returns a PTX-like
// text that depends on the source.
type fakeCompiler struct{ calls atomic.Int64 }

func (f *fakeCompiler) compile(src string) func() ([]byte, error) {
	return func() ([]byte, error) {
		f.calls.Add(1)
		return []byte("// ptx of\n" + src + "\x00"), nil
	}
}

// TestCacheSecondRunCompilesNothing: the first Load compiles, a second
// (through another Cache on the same folder, as a second process would)
// compiles nothing and returns the same bytes.
func TestCacheSecondRunCompilesNothing(t *testing.T) {
	dir := t.TempDir()
	var fc fakeCompiler
	key := KernelKey("__global__ void k() {}", []string{"--gpu-architecture=compute_90"}, "90", "13.0", "13000")
	a := &Cache{Dir: dir, MaxBytes: 1 << 20}
	d1, hit1, err := a.Load(key, fc.compile("k"))
	if err != nil || hit1 {
		t.Fatalf("first load: hit %v, err %v; want a compilation", hit1, err)
	}
	b := &Cache{Dir: dir, MaxBytes: 1 << 20}
	d2, hit2, err := b.Load(key, fc.compile("k"))
	if err != nil || !hit2 || !bytes.Equal(d1, d2) {
		t.Fatalf("second load: hit %v, err %v, same data %v", hit2, err, bytes.Equal(d1, d2))
	}
	if n := fc.calls.Load(); n != 1 {
		t.Fatalf("compiled %d times, want 1", n)
	}
	// A failed compilation is returned and stores nothing.
	_, _, err = a.Load(KernelKey("bad", nil, "90", "13.0", "13000"), func() ([]byte, error) { return nil, fmt.Errorf("syntax error") })
	if err == nil || err.Error() != "syntax error" {
		t.Fatalf("err = %v, want the compiler's", err)
	}
	if ents, _ := os.ReadDir(dir); len(ents) != 1 {
		t.Fatalf("%d files in the cache, want 1", len(ents))
	}
}

// TestKernelKey: every part of the key matters.
func TestKernelKey(t *testing.T) {
	base := []string{"src", "--opt", "90", "13.0", "13000"}
	key := func(p []string) string { return KernelKey(p[0], []string{p[1]}, p[2], p[3], p[4]) }
	k0 := key(base)
	if !validKey(k0) || len(k0) != 64 {
		t.Fatalf("key %q is not 64 hex digits", k0)
	}
	for i := range base {
		p := append([]string(nil), base...)
		p[i] += "x"
		if key(p) == k0 {
			t.Errorf("changing part %d (%q) keeps the key", i, base[i])
		}
	}
	// Parts are delimited: moving a character from one to the next is
	// another key.
	if KernelKey("ab", []string{"c"}, "", "", "") == KernelKey("a", []string{"bc"}, "", "", "") {
		t.Error("parts are not delimited in the key")
	}
	if KernelKey("s", []string{"a", "b"}, "", "", "") == KernelKey("s", []string{"a\x00b"}, "", "", "") {
		t.Error("options are not delimited in the key")
	}
}

// TestCacheCorruptEntry: an entry truncated, altered, of another key or
// without the header is ignored, compiled again and replaced.
func TestCacheCorruptEntry(t *testing.T) {
	key := KernelKey("src", nil, "90", "1", "1")
	other := KernelKey("other", nil, "90", "1", "1")
	corrupt := map[string]func(b []byte) []byte{
		"truncated": func(b []byte) []byte { return b[:len(b)-3] },
		"altered":   func(b []byte) []byte { b[len(b)-2] ^= 1; return b },
		"no header": func(b []byte) []byte { return b[4:] },
		"empty":     func(b []byte) []byte { return nil },
	}
	for name, f := range corrupt {
		t.Run(name, func(t *testing.T) {
			c := &Cache{Dir: t.TempDir(), MaxBytes: 1 << 20}
			var fc fakeCompiler
			want, _, err := c.Load(key, fc.compile("src"))
			if err != nil {
				t.Fatal(err)
			}
			b, err := os.ReadFile(c.path(key))
			if err != nil {
				t.Fatal(err)
			}
			if err := os.WriteFile(c.path(key), f(b), 0o644); err != nil {
				t.Fatal(err)
			}
			if _, ok := c.Get(key); ok {
				t.Fatal("a corrupt entry was returned")
			}
			got, hit, err := c.Load(key, fc.compile("src"))
			if err != nil || hit || !bytes.Equal(got, want) || fc.calls.Load() != 2 {
				t.Fatalf("after corruption: hit %v, err %v, calls %d; want a compilation", hit, err, fc.calls.Load())
			}
			if _, ok := c.Get(key); !ok {
				t.Fatal("the corrupt entry was not replaced")
			}
		})
	}
	// An entry renamed to another key does not check.
	c := &Cache{Dir: t.TempDir(), MaxBytes: 1 << 20}
	if err := c.Put(key, []byte("data")); err != nil {
		t.Fatal(err)
	}
	if err := os.Rename(c.path(key), c.path(other)); err != nil {
		t.Fatal(err)
	}
	if _, ok := c.Get(other); ok {
		t.Fatal("another key's entry was returned")
	}
	// Keys are names, never paths.
	if _, ok := c.Get("../x"); ok || c.Put("../x", nil) == nil {
		t.Fatal("a key with a path was accepted")
	}
}

// TestCacheSizeBound: past MaxBytes the entries used least recently go;
// a hit counts as a use; the entry just written stays.
func TestCacheSizeBound(t *testing.T) {
	dir := t.TempDir()
	c := &Cache{Dir: dir, MaxBytes: 0}
	data := bytes.Repeat([]byte("p"), 1000)
	keys := make([]string, 5)
	old := time.Now().Add(-time.Hour)
	for i := range keys {
		keys[i] = KernelKey(fmt.Sprint("src", i), nil, "90", "1", "1")
		if err := c.Put(keys[i], data); err != nil {
			t.Fatal(err)
		}
		// Distinct ages: key 0 oldest.
		at := old.Add(time.Duration(i) * time.Minute)
		os.Chtimes(c.path(keys[i]), at, at)
	}
	if _, ok := c.Get(keys[0]); !ok { // key 0 is now the newest used
		t.Fatal("key 0 missing")
	}
	info, _ := os.Stat(c.path(keys[0]))
	entry := info.Size()
	c.MaxBytes = 4 * entry // room for four
	extra := KernelKey("extra", nil, "90", "1", "1")
	if err := c.Put(extra, data); err != nil {
		t.Fatal(err)
	}
	var have []int
	for i, k := range keys {
		if _, err := os.Stat(c.path(k)); err == nil {
			have = append(have, i)
		}
	}
	if fmt.Sprint(have) != "[0 3 4]" {
		t.Fatalf("kept entries %v, want [0 3 4] (1 and 2 were used least recently)", have)
	}
	if _, ok := c.Get(extra); !ok {
		t.Fatal("the entry just written was evicted")
	}
	var total int64
	ents, _ := os.ReadDir(dir)
	for _, e := range ents {
		i, _ := e.Info()
		total += i.Size()
	}
	if total > c.MaxBytes {
		t.Fatalf("the folder holds %d bytes, more than %d", total, c.MaxBytes)
	}
	// Data larger than the bound is not stored.
	big := KernelKey("big", nil, "90", "1", "1")
	if err := c.Put(big, bytes.Repeat([]byte("p"), int(c.MaxBytes))); err != nil {
		t.Fatal(err)
	}
	if _, ok := c.Get(big); ok {
		t.Fatal("an entry larger than the bound was stored")
	}
	// A stale temporary file (a writer that died) is removed by a trim.
	stale := filepath.Join(dir, tempPrefix+"dead")
	os.WriteFile(stale, []byte("x"), 0o644)
	os.Chtimes(stale, old.Add(-2*time.Hour), old.Add(-2*time.Hour))
	if err := c.Put(extra, data); err != nil {
		t.Fatal(err)
	}
	if _, err := os.Stat(stale); err == nil {
		t.Fatal("a stale temporary file was kept")
	}
}

// TestCacheConcurrentWriters: goroutines with caches of their own on one
// folder (as processes would be) load and store the same and different
// keys at once under a tight bound; every Load returns its own kernel's
// data, and the folder ends with whole entries only.
func TestCacheConcurrentWriters(t *testing.T) {
	dir := t.TempDir()
	var fc fakeCompiler
	var wg sync.WaitGroup
	errs := make(chan error, 64)
	for w := 0; w < 8; w++ {
		wg.Add(1)
		go func(w int) {
			defer wg.Done()
			c := &Cache{Dir: dir, MaxBytes: 2 << 10}
			for i := 0; i < 200; i++ {
				src := fmt.Sprintf("kernel %d %s", (i+w)%12, strings.Repeat("x", 300))
				key := KernelKey(src, nil, "90", "1", "1")
				got, _, err := c.Load(key, fc.compile(src))
				if err != nil {
					errs <- err
					return
				}
				if want, _ := fc.compile(src)(); !bytes.Equal(got, want) {
					errs <- fmt.Errorf("writer %d: key of %q gave %q", w, src[:10], got[:20])
					return
				}
			}
		}(w)
	}
	wg.Wait()
	close(errs)
	for err := range errs {
		t.Fatal(err)
	}
	c := &Cache{Dir: dir, MaxBytes: 2 << 10}
	ents, _ := os.ReadDir(dir)
	for _, e := range ents {
		if strings.HasPrefix(e.Name(), tempPrefix) {
			t.Errorf("temporary file %s left", e.Name())
			continue
		}
		key := strings.TrimSuffix(e.Name(), cacheSuffix)
		if _, ok := c.Get(key); !ok {
			t.Errorf("entry %s does not check", e.Name())
		}
	}
}

// TestCacheProcesses: processes (this test binary, run again) fill one
// folder at once; afterwards every entry checks and a last Load of each
// key compiles nothing.
func TestCacheProcesses(t *testing.T) {
	if dir := os.Getenv("BITSH_TEST_CACHE_WRITER"); dir != "" {
		c := &Cache{Dir: dir, MaxBytes: 1 << 20}
		var fc fakeCompiler
		for i := 0; i < 300; i++ {
			src := fmt.Sprint("kernel ", i%10)
			if _, _, err := c.Load(KernelKey(src, nil, "90", "1", "1"), fc.compile(src)); err != nil {
				fmt.Fprintln(os.Stderr, err)
				os.Exit(1)
			}
			if i%10 == 9 { // store again: concurrent renames over one name
				c.Put(KernelKey(src, nil, "90", "1", "1"), []byte("// ptx of\n"+src+"\x00"))
			}
		}
		os.Exit(0)
	}
	if testscale.Short() {
		t.Skip("starts processes")
	}
	dir := t.TempDir()
	var cmds []*exec.Cmd
	for i := 0; i < 4; i++ {
		cmd := exec.Command(os.Args[0], "-test.run=^TestCacheProcesses$")
		cmd.Env = append(os.Environ(), "BITSH_TEST_CACHE_WRITER="+dir)
		var out bytes.Buffer
		cmd.Stdout, cmd.Stderr = &out, &out
		if err := cmd.Start(); err != nil {
			t.Fatal(err)
		}
		cmds = append(cmds, cmd)
	}
	for _, cmd := range cmds {
		if err := cmd.Wait(); err != nil {
			t.Fatalf("writer: %v", err)
		}
	}
	c := &Cache{Dir: dir, MaxBytes: 1 << 20}
	var fc fakeCompiler
	for i := 0; i < 10; i++ {
		src := fmt.Sprint("kernel ", i)
		got, hit, err := c.Load(KernelKey(src, nil, "90", "1", "1"), fc.compile(src))
		if err != nil || !hit || string(got) != "// ptx of\n"+src+"\x00" {
			t.Fatalf("key %d: hit %v, err %v, data %q", i, hit, err, got)
		}
	}
}

// TestDefaultCache: BITSH_CACHE_DIR moves the cache, "off" turns it off.
func TestDefaultCache(t *testing.T) {
	t.Setenv(CacheEnv, "/tmp/somewhere")
	if c := DefaultCache(); c == nil || c.Dir != "/tmp/somewhere/kernels" || c.MaxBytes != DefaultCacheBytes {
		t.Fatalf("cache %+v, want /tmp/somewhere/kernels", c)
	}
	t.Setenv(CacheEnv, "off")
	if c := DefaultCache(); c != nil {
		t.Fatalf("cache %+v, want none", c)
	}
	var none *Cache
	if _, ok := none.Get("k"); ok || none.Put("k", nil) != nil {
		t.Fatal("no cache should hold nothing and accept Put")
	}
	t.Setenv(CacheEnv, "")
	t.Setenv("XDG_CACHE_HOME", "/tmp/xdg")
	t.Setenv("HOME", "/tmp/home")
	if c := DefaultCache(); c == nil || !strings.HasPrefix(c.Dir, "/tmp/") || !strings.HasSuffix(c.Dir, filepath.Join("bitsh", "kernels")) {
		t.Fatalf("cache %+v, want the user's cache folder's bitsh/kernels", c)
	}
}
