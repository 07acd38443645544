package builtins

import (
	"context"
	"fmt"
	"math/bits"
	"sort"

	"github.com/bitsh/bitsh/builtins/words"
	"go.starlark.net/starlark"
)

// MaxHistogram is the most distinct values .histogram() puts in a dict.
const MaxHistogram = 1 << 24

type wordsMethod func(thread *starlark.Thread, fn string, a *Words, args starlark.Tuple, kwargs []starlark.Tuple) (starlark.Value, error)

// wordsMethods are the methods of an array; the docs live in words()'s
// docstring, which help() prints.
var wordsMethods = map[string]wordsMethod{
	"eq":        compareMethod(words.Eq),
	"ne":        compareMethod(words.Ne),
	"lt":        compareMethod(words.Lt),
	"le":        compareMethod(words.Le),
	"gt":        compareMethod(words.Gt),
	"ge":        compareMethod(words.Ge),
	"sum":       wordsSum,
	"min":       wordsMinMax(false),
	"max":       wordsMinMax(true),
	"count":     wordsCount,
	"any":       wordsAny,
	"all":       wordsAll,
	"filter":    wordsFilter,
	"unique":    wordsSorted(true),
	"sort":      wordsSorted(false),
	"histogram": wordsHistogram,
	"index":     wordsIndex,
	"tolist":    wordsToList,
}

// Attr returns a bound method.
func (a *Words) Attr(name string) (starlark.Value, error) {
	m, ok := wordsMethods[name]
	if !ok {
		return nil, nil
	}
	return starlark.NewBuiltin(name, func(thread *starlark.Thread, b *starlark.Builtin, args starlark.Tuple, kwargs []starlark.Tuple) (starlark.Value, error) {
		return m(thread, "words."+name, a, args, kwargs)
	}), nil
}

// AttrNames lists the methods.
func (a *Words) AttrNames() []string {
	names := make([]string, 0, len(wordsMethods))
	for n := range wordsMethods {
		names = append(names, n)
	}
	sort.Strings(names)
	return names
}

// wordOrArray unpacks an argument that is a word or an array of n words.
func wordOrArray(fn, name string, v starlark.Value, n int) (arr []uint64, x uint64, err error) {
	switch v := v.(type) {
	case *Words:
		if v.n != n {
			return nil, 0, fmt.Errorf("%s: %s has %d words, want %d like the array", fn, name, v.n, n)
		}
		return v.words(), 0, nil
	case starlark.Int:
		w, err := toWord(fn, name, v)
		return nil, uint64(w), err
	}
	return nil, 0, fmt.Errorf("%s: %s: got %s, want int or words", fn, name, v.Type())
}

func noArgs(fn string, args starlark.Tuple, kwargs []starlark.Tuple) error {
	return starlark.UnpackArgs(fn, args, kwargs)
}

func compareMethod(c words.Cmp) wordsMethod {
	return func(thread *starlark.Thread, fn string, a *Words, args starlark.Tuple, kwargs []starlark.Tuple) (starlark.Value, error) {
		var xv starlark.Value
		if err := starlark.UnpackArgs(fn, args, kwargs, "x", &xv); err != nil {
			return nil, err
		}
		if !a.canDefer() {
			arr, x, err := wordOrArray(fn, "x", xv, a.n)
			if err != nil {
				return nil, err
			}
			dst, err := allocWords(thread, fn, a.n)
			if err != nil {
				return nil, err
			}
			src := a.words()
			if err := inChunks(thread, fn, a.n, pollWords, func(lo, hi int) {
				if arr != nil {
					words.Compare(c, dst[lo:hi], src[lo:hi], arr[lo:hi])
				} else {
					words.CompareWord(c, dst[lo:hi], src[lo:hi], x)
				}
			}); err != nil {
				return nil, err
			}
			return newWords(dst, a.origin), nil
		}
		if b, ok := xv.(*Words); ok && b.n == a.n {
			if err := a.checkDeferred(thread, fn); err != nil {
				return nil, err
			}
			if bl := b.lazy.Load(); bl != nil && bl.Cost() < words.MaxSteps {
				return a.deferred(a.asLazy().CompareLazy(c, bl)), nil
			}
			return a.deferred(a.asLazy().CompareArray(c, b.words())), nil
		}
		_, x, err := wordOrArray(fn, "x", xv, a.n)
		if err != nil {
			return nil, err
		}
		if err := a.checkDeferred(thread, fn); err != nil {
			return nil, err
		}
		return a.deferred(a.asLazy().CompareWord(c, x)), nil
	}
}

func wordsSum(thread *starlark.Thread, fn string, a *Words, args starlark.Tuple, kwargs []starlark.Tuple) (starlark.Value, error) {
	if err := noArgs(fn, args, kwargs); err != nil {
		return nil, err
	}
	var hi, lo uint64
	if err := a.scan(thread, fn, func(blk []uint64) bool {
		h, l := words.Sum(blk)
		var c uint64
		lo, c = bits.Add64(lo, l, 0)
		hi += h + c
		return true
	}); err != nil {
		return nil, err
	}
	return sumValue(hi, lo), nil
}

func wordsMinMax(isMax bool) wordsMethod {
	return func(thread *starlark.Thread, fn string, a *Words, args starlark.Tuple, kwargs []starlark.Tuple) (starlark.Value, error) {
		if err := noArgs(fn, args, kwargs); err != nil {
			return nil, err
		}
		if a.n == 0 {
			return nil, fmt.Errorf("%s: the array is empty", fn)
		}
		var m uint64
		if !isMax {
			m = ^uint64(0)
		}
		if err := a.scan(thread, fn, func(blk []uint64) bool {
			if isMax {
				x, _ := words.Max(blk)
				m = max(m, x)
			} else {
				x, _ := words.Min(blk)
				m = min(m, x)
			}
			return true
		}); err != nil {
			return nil, err
		}
		return starlark.MakeUint64(m), nil
	}
}

func wordsCount(thread *starlark.Thread, fn string, a *Words, args starlark.Tuple, kwargs []starlark.Tuple) (starlark.Value, error) {
	if err := noArgs(fn, args, kwargs); err != nil {
		return nil, err
	}
	n := 0
	if err := a.scan(thread, fn, func(blk []uint64) bool { n += words.Count(blk); return true }); err != nil {
		return nil, err
	}
	return starlark.MakeInt(n), nil
}

func wordsAny(thread *starlark.Thread, fn string, a *Words, args starlark.Tuple, kwargs []starlark.Tuple) (starlark.Value, error) {
	if err := noArgs(fn, args, kwargs); err != nil {
		return nil, err
	}
	found := false
	if err := a.scan(thread, fn, func(blk []uint64) bool { found = words.Any(blk); return !found }); err != nil {
		return nil, err
	}
	return starlark.Bool(found), nil
}

func wordsAll(thread *starlark.Thread, fn string, a *Words, args starlark.Tuple, kwargs []starlark.Tuple) (starlark.Value, error) {
	if err := noArgs(fn, args, kwargs); err != nil {
		return nil, err
	}
	all := true
	if err := a.scan(thread, fn, func(blk []uint64) bool { all = words.All(blk); return all }); err != nil {
		return nil, err
	}
	return starlark.Bool(all), nil
}

func wordsFilter(thread *starlark.Thread, fn string, a *Words, args starlark.Tuple, kwargs []starlark.Tuple) (starlark.Value, error) {
	var mv starlark.Value
	if err := starlark.UnpackArgs(fn, args, kwargs, "mask", &mv); err != nil {
		return nil, err
	}
	m, ok := mv.(*Words)
	if !ok {
		return nil, fmt.Errorf("%s: mask: got %s, want words (such as a.gt(x))", fn, mv.Type())
	}
	if m.n != a.n {
		return nil, fmt.Errorf("%s: mask has %d words, want %d like the array", fn, m.n, a.n)
	}
	mw, aw := m.words(), a.words()
	n := 0
	if err := inChunks(thread, fn, len(mw), pollWords, func(lo, hi int) { n += words.Count(mw[lo:hi]) }); err != nil {
		return nil, err
	}
	dst, err := allocWords(thread, fn, n)
	if err != nil {
		return nil, err
	}
	dst = dst[:0]
	if err := inChunks(thread, fn, len(mw), pollWords, func(lo, hi int) { dst = words.Filter(dst, aw[lo:hi], mw[lo:hi]) }); err != nil {
		return nil, err
	}
	return newWords(dst, a.origin), nil
}

// sortedCopy returns a sorted copy of a's words, polling the run's context.
func sortedCopy(thread *starlark.Thread, fn string, a *Words) ([]uint64, error) {
	if err := checkWords(thread, fn, a.n); err != nil {
		return nil, err
	}
	var dst []uint64
	if l := a.lazy.Load(); l != nil {
		dst = l.Materialize() // a copy of the words already
	} else {
		var err error
		if dst, err = cloneWords(thread, fn, a.words()); err != nil {
			return nil, err
		}
	}
	if sorted, err := isSortedWords(thread, fn, dst); err != nil || sorted {
		return dst, err
	}
	if err := words.Sort(Context(thread), dst); err != nil {
		return nil, fmt.Errorf("%s: interrupted: %w", fn, context.Cause(Context(thread)))
	}
	return dst, nil
}

func wordsSorted(unique bool) wordsMethod {
	return func(thread *starlark.Thread, fn string, a *Words, args starlark.Tuple, kwargs []starlark.Tuple) (starlark.Value, error) {
		if err := noArgs(fn, args, kwargs); err != nil {
			return nil, err
		}
		s, err := sortedCopy(thread, fn, a)
		if err != nil {
			return nil, err
		}
		if unique {
			if s, err = dedupWords(thread, fn, s); err != nil {
				return nil, err
			}
		}
		return newWords(s, a.origin), nil
	}
}

func wordsHistogram(thread *starlark.Thread, fn string, a *Words, args starlark.Tuple, kwargs []starlark.Tuple) (starlark.Value, error) {
	if err := noArgs(fn, args, kwargs); err != nil {
		return nil, err
	}
	s, err := sortedCopy(thread, fn, a)
	if err != nil {
		return nil, err
	}
	distinct, err := countRuns(thread, fn, s, MaxHistogram)
	if err != nil {
		return nil, err
	}
	if distinct > MaxHistogram {
		return nil, fmt.Errorf("%s: more than %d distinct values; count them with .unique() or reduce them first", fn, MaxHistogram)
	}
	// A dict entry costs about 100 bytes; keep to the budget.
	if err := CheckAlloc(thread, fn, 100*int64(distinct)); err != nil {
		return nil, err
	}
	d := starlark.NewDict(distinct)
	ctx := Context(thread)
	var ierr error
	i := 0
	words.Runs(s, func(v uint64, c int) bool {
		if i++; i&4095 == 0 && ctx.Err() != nil {
			ierr = fmt.Errorf("%s: interrupted: %w", fn, context.Cause(ctx))
			return false
		}
		ierr = d.SetKey(starlark.MakeUint64(v), starlark.MakeInt(c))
		return ierr == nil
	})
	if ierr != nil {
		return nil, ierr
	}
	return d, nil
}

func wordsIndex(_ *starlark.Thread, fn string, a *Words, args starlark.Tuple, kwargs []starlark.Tuple) (starlark.Value, error) {
	var x Word
	if err := unpack(fn, args, kwargs, "x", &x); err != nil {
		return nil, err
	}
	i := words.Index(a.words(), uint64(x))
	if i < 0 {
		return nil, fmt.Errorf("%s: x = %d is not in the array", fn, uint64(x))
	}
	return starlark.MakeInt(i), nil
}

func wordsToList(thread *starlark.Thread, fn string, a *Words, args starlark.Tuple, kwargs []starlark.Tuple) (starlark.Value, error) {
	if err := noArgs(fn, args, kwargs); err != nil {
		return nil, err
	}
	if a.n > MaxMaterialise {
		return nil, fmt.Errorf("%s: %d words are more than the %d a list may hold; slice the array or use chunks", fn, a.n, MaxMaterialise)
	}
	if err := CheckAlloc(thread, fn, 16*int64(a.n)); err != nil {
		return nil, err
	}
	elems, err := makeSlice[starlark.Value](thread, fn, a.n)
	if err != nil {
		return nil, err
	}
	src := a.words()
	if err := inChunks(thread, fn, a.n, pollWords/16, func(lo, hi int) {
		for i, x := range src[lo:hi] {
			elems[lo+i] = starlark.MakeUint64(x)
		}
	}); err != nil {
		return nil, err
	}
	return starlark.NewList(elems), nil
}
