package builtins

import (
	"fmt"
	"math"
	"math/big"
	"strconv"

	"github.com/bitsh/bitsh/builtins/picture"
	"go.starlark.net/starlark"
)

func init() {
	register(Builtin{Name: "plot", Topic: "pictures", Fn: plot, Doc: `plot(data)
Returns a bar chart of data: a dict (each key a bar, labelled by str(key),
in the dict's order) or a list or tuple (bar i labelled i). Values are ints
or floats, none negative. print shows it as text bars; a notebook shows it
as an SVG picture. plot(words(...).histogram()) draws a histogram.`})
}

// A plotValue is the picture plot makes.
type plotValue struct {
	bars []picture.Bar
	ints bool // every value an int: print them without a fraction
	src  starlark.Value
}

var _ Pictured = (*plotValue)(nil)

func plot(_ *starlark.Thread, b *starlark.Builtin, args starlark.Tuple, kwargs []starlark.Tuple) (starlark.Value, error) {
	var data starlark.Value
	if err := starlark.UnpackArgs(b.Name(), args, kwargs, "data", &data); err != nil {
		return nil, err
	}
	p := &plotValue{ints: true, src: data}
	add := func(label string, v starlark.Value) error {
		var f float64
		switch v := v.(type) {
		case starlark.Int:
			f, _ = new(big.Float).SetInt(v.BigInt()).Float64()
		case starlark.Float:
			f, p.ints = float64(v), false
		default:
			return fmt.Errorf("plot: data[%s] = %s: got %s, want int or float", label, Short(v), v.Type())
		}
		if f < 0 || math.IsNaN(f) {
			return fmt.Errorf("plot: data[%s] = %s is negative", label, Short(v))
		}
		p.bars = append(p.bars, picture.Bar{Label: label, Value: f})
		return nil
	}
	switch d := data.(type) {
	case *starlark.Dict:
		if d.Len() > maxBars {
			return nil, fmt.Errorf("plot: data has %d items, more than the %d bars a plot draws", d.Len(), maxBars)
		}
		for _, kv := range d.Items() {
			label := kv[0].String()
			if s, ok := kv[0].(starlark.String); ok {
				label = string(s)
			}
			if err := add(label, kv[1]); err != nil {
				return nil, err
			}
		}
	case starlark.Indexable:
		if _, ok := d.(starlark.String); ok {
			return nil, fmt.Errorf("plot: data: got string, want dict, list or tuple")
		}
		if d.Len() > maxBars {
			return nil, fmt.Errorf("plot: data has %d items, more than the %d bars a plot draws", d.Len(), maxBars)
		}
		for i := 0; i < d.Len(); i++ {
			if err := add(strconv.Itoa(i), d.Index(i)); err != nil {
				return nil, err
			}
		}
	default:
		return nil, fmt.Errorf("plot: data: got %s, want dict, list or tuple", data.Type())
	}
	return p, nil
}

// maxBars keeps a plot readable (and its SVG small).
const maxBars = 4096

func (p *plotValue) format(v float64) string {
	if p.ints && v < 1<<53 {
		return strconv.FormatFloat(v, 'f', 0, 64)
	}
	return strconv.FormatFloat(v, 'g', 6, 64)
}

// String is the text picture, so that print(plot(...)) draws it.
func (p *plotValue) String() string { return picture.BarsText(p.bars, p.format) }

// Type returns "plot".
func (p *plotValue) Type() string { return "plot" }

// Freeze does nothing: a plot is immutable.
func (p *plotValue) Freeze() {}

// Truth is true.
func (p *plotValue) Truth() starlark.Bool { return true }

// Hash fails: plots are not hashable.
func (p *plotValue) Hash() (uint32, error) { return 0, fmt.Errorf("unhashable type: plot") }

// PictureText draws the bars in text.
func (p *plotValue) PictureText(bool) string { return p.String() }

// PictureSVG draws the bars as SVG.
func (p *plotValue) PictureSVG() string { return picture.BarsSVG(p.bars, p.format) }
