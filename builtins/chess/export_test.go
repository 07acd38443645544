package chess

// BuildFresh builds the sliding-attack tables into new arrays, to time
// the one-time cost.
func BuildFresh() {
	var r, b [64]magic
	buildTables(&r, &b)
}
