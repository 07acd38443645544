package main

import (
	"bytes"
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"

	"gopkg.in/yaml.v3"
)

// TestIndexedJobManifest checks examples/cluster/indexed-job.yaml: it
// holds an Indexed Job with the completions and parallelism that
// docs/cluster.md states, whose pods run a command line the CLI accepts,
// shard $JOB_COMPLETION_INDEX of completions. It then runs every pod's
// command line through run (the real flag set), with the manifest's paths
// mapped to a temporary directory and the width 64 lowered to 32 (67
// million magics would take minutes), merges the parts with the merge
// job's command line and compares the result with bitsh -j 1.
func TestIndexedJobManifest(t *testing.T) {
	docs := readYAML(t, "../../examples/cluster/indexed-job.yaml")
	var job map[string]any
	for _, d := range docs {
		if d["kind"] == "Job" {
			job = d
		}
	}
	if job == nil || job["apiVersion"] != "batch/v1" {
		t.Fatalf("no batch/v1 Job in the manifest")
	}
	spec := job["spec"].(map[string]any)
	if spec["completionMode"] != "Indexed" {
		t.Fatalf("completionMode = %v, want Indexed", spec["completionMode"])
	}
	// docs/cluster.md describes the job as 8 shards, 4 at a time.
	completions, parallelism := spec["completions"], spec["parallelism"]
	if completions != 8 || parallelism != 4 {
		t.Fatalf("completions, parallelism = %v, %v; want 8, 4 as docs/cluster.md says", completions, parallelism)
	}
	doc, err := os.ReadFile("../../docs/cluster.md")
	if err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(string(doc), "completions: 8") || !strings.Contains(string(doc), "parallelism: 4") {
		t.Errorf("docs/cluster.md does not state completions: 8 and parallelism: 4")
	}
	cmd := podCommand(t, spec)

	dir := t.TempDir()
	script, err := filepath.Abs("../../examples/cluster/census.star")
	if err != nil {
		t.Fatal(err)
	}
	mapPaths := func(s string) string {
		s = strings.ReplaceAll(s, "/scripts/census.star", script)
		return strings.ReplaceAll(s, "/parts/", dir+"/")
	}
	n := completions.(int)
	for i := range n {
		line := strings.ReplaceAll(cmd, "$JOB_COMPLETION_INDEX", strconv.Itoa(i))
		args := strings.Fields(mapPaths(line))
		if len(args) < 2 || args[0] != "exec" || args[1] != "bitsh" {
			t.Fatalf("pod command %q does not exec bitsh", line)
		}
		args = args[2:]
		if k := indexOf(args, "-shard"); k < 0 || args[k+1] != fmt.Sprintf("%d/%d", i, n) {
			t.Fatalf("pod %d runs %q, want -shard %d/%d", i, line, i, n)
		}
		if args[len(args)-1] == "64" {
			args[len(args)-1] = "32"
		}
		var out, errw bytes.Buffer
		if code := run(args, strings.NewReader(""), &out, &errw); code != 0 {
			t.Fatalf("pod %d: bitsh %s: exit %d\n%s", i, strings.Join(args, " "), code, errw.String())
		}
	}

	merge := podCommand(t, readYAML(t, "../../examples/cluster/merge-job.yaml")[0]["spec"].(map[string]any))
	first, _, _ := strings.Cut(merge, " && ")
	args := strings.Fields(mapPaths(first))
	if args[0] != "bitsh" || args[1] != "merge" {
		t.Fatalf("merge job runs %q", first)
	}
	var files []string
	for _, a := range args[2:] {
		if m, _ := filepath.Glob(a); strings.Contains(a, "*") {
			files = append(files, m...)
		} else {
			files = append(files, a)
		}
	}
	if len(files) != 2+n {
		t.Fatalf("merge job arguments %v: want -o, a path and %d parts", files, n)
	}
	var out, errw bytes.Buffer
	if code := run(append([]string{"merge"}, files...), nil, &out, &errw); code != 0 {
		t.Fatalf("bitsh merge: exit %d\n%s", code, errw.String())
	}
	var got, want bytes.Buffer
	if code := run([]string{"merge", filepath.Join(dir, "census.json")}, nil, &got, &errw); code != 0 {
		t.Fatalf("bitsh merge census.json: exit %d\n%s", code, errw.String())
	}
	if code := run([]string{"-j", "1", script, "32"}, nil, &want, &errw); code != 0 {
		t.Fatalf("bitsh -j 1: exit %d\n%s", code, errw.String())
	}
	if got.String() != want.String() || got.Len() == 0 {
		t.Errorf("merged job:\n%s\nwant (bitsh -j 1):\n%s", got.String(), want.String())
	}
}

func readYAML(t *testing.T, path string) []map[string]any {
	t.Helper()
	f, err := os.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	var docs []map[string]any
	dec := yaml.NewDecoder(f)
	for {
		var d map[string]any
		if err := dec.Decode(&d); err != nil {
			if err.Error() == "EOF" {
				return docs
			}
			t.Fatalf("%s: %v", path, err)
		}
		docs = append(docs, d)
	}
}

// podCommand returns the shell command line of a Job's only container,
// which must run as sh -c LINE.
func podCommand(t *testing.T, spec map[string]any) string {
	t.Helper()
	pod := spec["template"].(map[string]any)["spec"].(map[string]any)
	if pod["restartPolicy"] != "Never" {
		t.Errorf("restartPolicy = %v, want Never (a shard's retry is a new pod)", pod["restartPolicy"])
	}
	cs := pod["containers"].([]any)
	if len(cs) != 1 {
		t.Fatalf("%d containers, want 1", len(cs))
	}
	cmd := cs[0].(map[string]any)["command"].([]any)
	if len(cmd) != 3 || cmd[0] != "sh" || cmd[1] != "-c" {
		t.Fatalf("command = %v, want [sh -c LINE]", cmd)
	}
	return cmd[2].(string)
}

func indexOf(s []string, x string) int {
	for i, y := range s {
		if y == x {
			return i
		}
	}
	return -1
}
