package main

import (
	"bytes"
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"strconv"
	"strings"
	"time"

	"github.com/bitsh/bitsh/builtins/shard"
	"github.com/bitsh/bitsh/interp"
)

func init() { subcommands["merge"] = runMerge }

// maxShards bounds -shard's N: a part file names its count, and merge
// refuses larger ones, so the two agree. maxJobs bounds -j, whose shards
// each hold an interpreter in this process at once.
const (
	maxShards = 1 << 20
	maxJobs   = 4096
)

// shardFlag is the value of -shard I/N.
type shardFlag struct {
	index, count int
	set          bool
}

func (f *shardFlag) String() string {
	if !f.set {
		return ""
	}
	return fmt.Sprintf("%d/%d", f.index, f.count)
}

func (f *shardFlag) Set(s string) error {
	a, b, ok := strings.Cut(s, "/")
	i, err1 := strconv.Atoi(a)
	n, err2 := strconv.Atoi(b)
	switch {
	case !ok || err1 != nil || err2 != nil:
		return fmt.Errorf("want I/N, shard I of N (0 <= I < N), got %q", s)
	case n < 1 || n > maxShards:
		return fmt.Errorf("N = %d is not in 1..%d", n, maxShards)
	case i < 0 || i >= n:
		return fmt.Errorf("I = %d is not in 0..%d", i, n-1)
	}
	f.index, f.count, f.set = i, n, true
	return nil
}

// shardFlags are -shard, -j and -o.
type shardFlags struct {
	shard shardFlag
	jobs  int
	out   string
}

func addShardFlags(fs *flag.FlagSet) *shardFlags {
	sf := &shardFlags{}
	fs.Var(&sf.shard, "shard", "run shard `I/N`, I of N (0 <= I < N): share() gives this shard's part (docs/cluster.md)")
	fs.IntVar(&sf.jobs, "j", 0, "run `N` shards in this process (GOMAXPROCS at a time), each in its own interpreter, and merge their results")
	fs.StringVar(&sf.out, "o", "", "write the emitted results as JSON to `PATH` (a part for bitsh merge) instead of printing them")
	return sf
}

// validate returns a usage error's message, or "".
func (sf *shardFlags) validate(repl bool) string {
	switch {
	case sf.jobs != 0 && sf.shard.set:
		return "-j and -shard do not go together: -j N runs all N shards here, -shard I/N runs one"
	case sf.jobs < 0 || sf.jobs > maxJobs:
		return fmt.Sprintf("-j %d is not in 1..%d (more shards: run them as processes, -shard I/N)", sf.jobs, maxJobs)
	case repl && sf.jobs != 0:
		return "-j needs a script (FILE, -c CODE or - for standard input)"
	case repl && sf.out != "":
		return "-o needs a script (FILE, -c CODE or - for standard input)"
	}
	return ""
}

// options are the interpreter options of a single shard's run.
func (sf *shardFlags) options() []interp.Option {
	if !sf.shard.set {
		return nil
	}
	return []interp.Option{interp.WithShard(sf.shard.index, sf.shard.count)}
}

// run runs the script as one shard in in (with the timeout, Ctrl-C and
// the hard stop of runScript), or with -j as N shards in new interpreters
// made with opts, then prints or writes the results. A failed run writes
// no file.
func (sf *shardFlags) run(in *interp.Interp, opts []interp.Option, filename string, src []byte, argv []string, timeout time.Duration, stdout, stderr io.Writer) int {
	count, shards := 1, []int{0}
	var results *shard.Results
	if sf.jobs > 0 {
		count = sf.jobs
		var status int
		if results, status = runJobs(count, opts, filename, src, timeout, in.MaxMemory(), stdout, stderr); results == nil {
			return status
		}
		shards = make([]int, count)
		for i := range shards {
			shards[i] = i
		}
	} else {
		if status := runScript(in, filename, src, timeout, stderr); status != exitOK {
			return status
		}
		results = in.Results()
		if sf.shard.set {
			count, shards = sf.shard.count, []int{sf.shard.index}
		}
	}
	if sf.out != "" {
		p := shard.NewPart(filename, src, argv, count, shards, results)
		if err := p.WriteFile(sf.out); err != nil {
			fmt.Fprintf(stderr, "%s: writing the results: %v\n", progName, err)
			return exitError
		}
		return exitOK
	}
	if err := results.WriteText(stdout); err != nil {
		fmt.Fprintf(stderr, "%s: %v\n", progName, err)
		return exitError
	}
	return exitOK
}

// runJobs is -j: count shards, with the timeout, Ctrl-C and the
// hard stop as runScript has them. It returns the merged results, or nil
// and the exit status.
func runJobs(count int, opts []interp.Option, filename string, src []byte, timeout time.Duration, budget int64, stdout, stderr io.Writer) (*shard.Results, int) {
	ctx, stop := runContext(timeout, budget)
	defer stop()

	var rs []*shard.Results
	p := start(func() (err error) {
		rs, err = interp.RunShards(ctx, count, filename, src, stdout, stderr, opts...)
		return err
	})
	err, stuck := p.wait(ctx, hardStopGrace)
	status := exitError
	if errors.Is(context.Cause(ctx), errInterrupted) {
		status = exitInterrupted
	}
	switch {
	case stuck:
		fmt.Fprintf(stderr, "%s: %v, and the interpreters did not stop within %v (a builtin that cannot be interrupted is running): exiting\n",
			progName, context.Cause(ctx), hardStopGrace)
		return nil, status
	case err != nil:
		var se *interp.ShardError
		if errors.As(err, &se) {
			if code, ok := exitCode(se.Err); ok {
				fmt.Fprintf(stderr, "%s: shard %d of %d called exit(%d); no results\n", progName, se.Index, count, code)
				return nil, code
			}
			var b bytes.Buffer
			printError(&b, se.Err)
			prefix := fmt.Sprintf("[%d] ", se.Index)
			fmt.Fprint(stderr, prefix+strings.ReplaceAll(strings.TrimRight(b.String(), "\n"), "\n", "\n"+prefix)+"\n")
			fmt.Fprintf(stderr, "%s: shard %d of %d failed; no results\n", progName, se.Index, count)
		} else {
			printError(stderr, err)
		}
		return nil, status
	}
	merged, err := shard.MergeResults(rs...)
	if err != nil {
		fmt.Fprintf(stderr, "%s: merging the shards' results: %v\n", progName, err)
		return nil, exitError
	}
	return merged, exitOK
}

const mergeUsage = `usage: bitsh merge [-o PATH] FILES...

Merges the JSON parts that the shards of one job wrote (bitsh -shard I/N -o
PART FILE ...) and prints the results as "key = value" lines, or writes them
as one JSON file with -o. It refuses parts of different scripts, arguments or
shard counts, a shard given twice, and missing shards, naming them.
Exit status: 0 on success, 1 when the parts do not merge, 2 on bad usage.

flags:
`

// runMerge is bitsh merge.
func runMerge(args []string, _ io.Reader, stdout, stderr io.Writer) int {
	fs := flag.NewFlagSet(progName+" merge", flag.ContinueOnError)
	fs.SetOutput(io.Discard)
	out := fs.String("o", "", "write the merged results as JSON to `PATH` instead of printing them")
	if err := fs.Parse(args); err != nil {
		if errors.Is(err, flag.ErrHelp) {
			fmt.Fprint(stdout, mergeUsage)
			fs.SetOutput(stdout)
			fs.PrintDefaults()
			return exitOK
		}
		return usageError(stderr, "merge: %v (bitsh merge -h for usage)", err)
	}
	files := fs.Args()
	if len(files) == 0 {
		return usageError(stderr, "merge: no part files (bitsh merge -h for usage)")
	}
	parts := make([]*shard.Part, len(files))
	for i, name := range files {
		data, err := os.ReadFile(name)
		if err != nil {
			fmt.Fprintf(stderr, "%s merge: %v\n", progName, err)
			return exitError
		}
		if parts[i], err = shard.ReadPart(name, data); err != nil {
			fmt.Fprintf(stderr, "%s merge: %v\n", progName, err)
			return exitError
		}
	}
	merged, err := shard.Merge(parts, files)
	if err != nil {
		fmt.Fprintf(stderr, "%s merge: %v\n", progName, err)
		return exitError
	}
	if *out != "" {
		if err := merged.WriteFile(*out); err != nil {
			fmt.Fprintf(stderr, "%s merge: writing the results: %v\n", progName, err)
			return exitError
		}
		return exitOK
	}
	if err := merged.Results.WriteText(stdout); err != nil {
		fmt.Fprintf(stderr, "%s merge: %v\n", progName, err)
		return exitError
	}
	return exitOK
}
