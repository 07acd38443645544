package native

// ArrayView returns the first n elements of the function's array
// parameter a as the last run left them, as Array copies them, without
// the copy: the worker's own memory, where every one of them was written
// by that run or set for it (SetArray, SetElem, SetPrefix). The caller
// must not write it, and it holds only until the worker's next run or
// set. ok is false, and Array is the way, where one of them was not set
// (it reads as the array's initial value), where n is past the array's
// end, or where the worker does not run x86-64 code.
func (w *Worker) ArrayView(a, n int) (vals []uint64, ok bool) {
	if _, ok := w.amd64Of(); !ok || n < 0 || n > w.p.f.Scratch[a].Len {
		return nil, false
	}
	vs, eps, epoch := w.array(a)
	for _, e := range eps[:n] {
		if e != epoch {
			return nil, false
		}
	}
	return vs[:n:n], true
}

// ArrayWords returns the first n elements of the function's array
// parameter a as the last run left them: ArrayView's words where it gives
// them, else a copy (Array) appended to buf, returned grown. The copies
// of calls that pass each the buf the last returned share one array
// where buf has room for them: the caller may give it room for several
// first. The words are not to be written.
func (w *Worker) ArrayWords(a, n int, buf []uint64) (grown, vals []uint64) {
	if v, ok := w.ArrayView(a, n); ok {
		return buf, v
	}
	if cap(buf)-len(buf) < n {
		buf = append(make([]uint64, 0, len(buf)+n), buf...)
	}
	vals = buf[len(buf) : len(buf)+n]
	w.Array(a, vals)
	return buf[:len(buf)+n], vals
}
