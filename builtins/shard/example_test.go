package shard_test

import (
	"fmt"
	"math/big"
	"os"

	"github.com/bitsh/bitsh/builtins/shard"
)

func ExampleRange64() {
	for i := range 3 {
		lo, hi := shard.Range64(10, i, 3)
		fmt.Printf("shard %d of 3: [%d, %d)\n", i, lo, hi)
	}
	// Output:
	// shard 0 of 3: [0, 3)
	// shard 1 of 3: [3, 6)
	// shard 2 of 3: [6, 10)
}

func ExampleMerge() {
	src := []byte(`emit("n", len(share(range(10))))`)
	var parts []*shard.Part
	for i := range 3 {
		r := &shard.Results{}
		lo, hi := shard.Range64(10, i, 3)
		r.Emit("n", shard.Sum, big.NewInt(int64(hi-lo)))
		r.Emit("parts", shard.Append, big.NewInt(int64(i)))
		parts = append(parts, shard.NewPart("n.star", src, nil, 3, []int{i}, r))
	}
	m, err := shard.Merge(parts, nil)
	if err != nil {
		panic(err)
	}
	m.Results.WriteText(os.Stdout)
	_, err = shard.Merge(parts[:2], []string{"p0.json", "p1.json"})
	fmt.Println(err)
	// Output:
	// n = 10
	// parts = [0, 1, 2]
	// missing shard 2 of 3
}
