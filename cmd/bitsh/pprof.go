package main

import (
	"bytes"
	"compress/gzip"
	"encoding/binary"
	"errors"
	"fmt"
	"io"
)

// A pprofSample is one sample of a pprof profile: its values, and for
// each of its locations, leaf first, the names of the functions of the
// location's lines.
type pprofSample struct {
	values []int64
	frames [][]string
}

// parsePprof reads the samples of a profile in pprof's format
// (github.com/google/pprof's proto/profile.proto, gzipped or not): the
// part that profileTop reads, decoded here rather than by the pprof
// package, whose initialization (regular expressions) every start of
// bitsh paid for.
func parsePprof(data []byte) ([]pprofSample, error) {
	if len(data) >= 2 && data[0] == 0x1f && data[1] == 0x8b {
		zr, err := gzip.NewReader(bytes.NewReader(data))
		if err != nil {
			return nil, err
		}
		if data, err = io.ReadAll(zr); err != nil {
			return nil, err
		}
	}
	// Field numbers of profile.proto.
	const (
		profileSample   = 2
		profileLocation = 4
		profileFunction = 5
		profileString   = 6
		sampleLocation  = 1
		sampleValue     = 2
		locationID      = 1
		locationLine    = 4
		lineFunction    = 1
		functionID      = 1
		functionName    = 2
	)
	type rawSample struct {
		locs   []uint64
		values []int64
	}
	var (
		strs     []string
		samples  []rawSample
		funcName = map[uint64]int64{}
		locFuncs = map[uint64][]uint64{}
	)
	err := protoFields(data, func(field int, v uint64, msg []byte) error {
		switch field {
		case profileString:
			strs = append(strs, string(msg))
		case profileSample:
			var s rawSample
			err := protoFields(msg, func(f int, v uint64, b []byte) error {
				var err error
				switch f {
				case sampleLocation:
					s.locs, err = protoUints(s.locs, v, b)
				case sampleValue:
					var vs []uint64
					vs, err = protoUints(nil, v, b)
					for _, x := range vs {
						s.values = append(s.values, int64(x))
					}
				}
				return err
			})
			samples = append(samples, s)
			return err
		case profileLocation:
			var id uint64
			var fns []uint64
			err := protoFields(msg, func(f int, v uint64, b []byte) error {
				switch f {
				case locationID:
					id = v
				case locationLine:
					return protoFields(b, func(f int, v uint64, _ []byte) error {
						if f == lineFunction {
							fns = append(fns, v)
						}
						return nil
					})
				}
				return nil
			})
			locFuncs[id] = fns
			return err
		case profileFunction:
			var id uint64
			var name int64
			err := protoFields(msg, func(f int, v uint64, _ []byte) error {
				switch f {
				case functionID:
					id = v
				case functionName:
					name = int64(v)
				}
				return nil
			})
			funcName[id] = name
			return err
		}
		return nil
	})
	if err != nil {
		return nil, err
	}
	out := make([]pprofSample, len(samples))
	for i, s := range samples {
		out[i].values = s.values
		for _, loc := range s.locs {
			fns, ok := locFuncs[loc]
			if !ok {
				return nil, fmt.Errorf("sample %d: no location %d", i, loc)
			}
			var names []string
			for _, fn := range fns {
				if n, ok := funcName[fn]; ok && n >= 0 && n < int64(len(strs)) {
					names = append(names, strs[n])
				}
			}
			out[i].frames = append(out[i].frames, names)
		}
	}
	return out, nil
}

var errProto = errors.New("malformed protocol buffer")

// protoFields calls fn for each field of the protocol buffer message b:
// its number, and its value (a varint, or a fixed-size number) or its
// bytes (length-delimited: a string, a message, packed numbers).
func protoFields(b []byte, fn func(field int, v uint64, bytes []byte) error) error {
	for len(b) > 0 {
		key, n := binary.Uvarint(b)
		if n <= 0 {
			return errProto
		}
		b = b[n:]
		field := int(key >> 3)
		var v uint64
		var payload []byte
		switch key & 7 {
		case 0: // varint
			v, n = binary.Uvarint(b)
			if n <= 0 {
				return errProto
			}
			b = b[n:]
		case 1: // 64 bits
			if len(b) < 8 {
				return errProto
			}
			v, b = binary.LittleEndian.Uint64(b), b[8:]
		case 2: // length-delimited
			l, n := binary.Uvarint(b)
			if n <= 0 || l > uint64(len(b)-n) {
				return errProto
			}
			payload, b = b[n:n+int(l)], b[n+int(l):]
		case 5: // 32 bits
			if len(b) < 4 {
				return errProto
			}
			v, b = uint64(binary.LittleEndian.Uint32(b)), b[4:]
		default:
			return errProto
		}
		if err := fn(field, v, payload); err != nil {
			return err
		}
	}
	return nil
}

// protoUints appends to dst a repeated integer field's value v, or its
// packed values in b.
func protoUints(dst []uint64, v uint64, b []byte) ([]uint64, error) {
	if b == nil {
		return append(dst, v), nil
	}
	for len(b) > 0 {
		x, n := binary.Uvarint(b)
		if n <= 0 {
			return dst, errProto
		}
		dst, b = append(dst, x), b[n:]
	}
	return dst, nil
}
