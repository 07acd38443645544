package native

// SetPrefix sets the first len(vals) elements of the function's array
// parameter a to vals for the next runs, leaving the others as they are:
// for an array of which a run reads no element past them before it writes
// it (a module's set or dict: only its slots and entries in use).
func (w *Worker) SetPrefix(a int, vals []uint64) {
	if st, ok := w.evalOf(); ok {
		for i, v := range vals {
			st.SetElem(a, i, v)
		}
		return
	}
	vs, eps, epoch := w.array(a)
	copy(vs, vals)
	for i := range vals {
		eps[i] = epoch
	}
}
