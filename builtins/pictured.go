package builtins

import "go.starlark.net/starlark"

// A Pictured value has a picture (docs/repl.md): the REPL prints its text
// form when it echoes the value, and the notebook kernel sends its SVG
// beside the text/plain repr.
type Pictured interface {
	starlark.Value
	// PictureText returns the picture for a terminal; color says whether
	// ANSI colours may be used (false when not writing to a terminal).
	PictureText(color bool) string
	// PictureSVG returns the picture as a standalone SVG document.
	PictureSVG() string
}
