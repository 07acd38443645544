package chess_test

// The naive references: every attack set, mask, ray and flip computed
// square by square from (file, rank) coordinates, independently of the
// kernel's tables and bit tricks.

type coord struct{ f, r int }

func at(sq int) coord             { return coord{sq % 8, sq / 8} }
func (c coord) ok() bool          { return c.f >= 0 && c.f < 8 && c.r >= 0 && c.r < 8 }
func (c coord) sq() int           { return 8*c.r + c.f }
func (c coord) bit() uint64       { return 1 << uint(c.sq()) }
func (c coord) add(d coord) coord { return coord{c.f + d.f, c.r + d.r} }

var (
	rookDirs   = []coord{{1, 0}, {-1, 0}, {0, 1}, {0, -1}}
	bishopDirs = []coord{{1, 1}, {1, -1}, {-1, 1}, {-1, -1}}
	allDirs    = append(append([]coord{}, rookDirs...), bishopDirs...)
)

// naiveSlide walks each ray square by square until the edge or the first
// occupied square, which it includes.
func naiveSlide(sq int, occ uint64, dirs []coord) uint64 {
	var a uint64
	for _, d := range dirs {
		for c := at(sq).add(d); c.ok(); c = c.add(d) {
			a |= c.bit()
			if occ&c.bit() != 0 {
				break
			}
		}
	}
	return a
}

// naiveMask walks each ray on an empty board and drops its last square.
func naiveMask(sq int, dirs []coord) uint64 {
	var m uint64
	for _, d := range dirs {
		for c := at(sq).add(d); c.add(d).ok(); c = c.add(d) {
			m |= c.bit()
		}
	}
	return m
}

func naiveSteps(sq int, steps []coord) uint64 {
	var a uint64
	for _, d := range steps {
		if c := at(sq).add(d); c.ok() {
			a |= c.bit()
		}
	}
	return a
}

var (
	knightSteps = []coord{{1, 2}, {2, 1}, {2, -1}, {1, -2}, {-1, -2}, {-2, -1}, {-2, 1}, {-1, 2}}
	kingSteps   = allDirs
)

// naiveRay finds the direction from a to b by walking every direction.
func naiveRay(a, b int) (ray, between uint64) {
	for _, d := range allDirs {
		var seen uint64
		for c := at(a).add(d); c.ok(); c = c.add(d) {
			if c.sq() == b {
				back := coord{-d.f, -d.r}
				line := at(a).bit()
				for e := at(a).add(d); e.ok(); e = e.add(d) {
					line |= e.bit()
				}
				for e := at(a).add(back); e.ok(); e = e.add(back) {
					line |= e.bit()
				}
				return line, seen
			}
			seen |= c.bit()
		}
	}
	return 0, 0
}

// mapSquares moves each one bit of x by f, dropping those f sends off
// the board.
func mapSquares(x uint64, f func(coord) coord) uint64 {
	var y uint64
	for sq := range 64 {
		if x>>sq&1 != 0 {
			if c := f(at(sq)); c.ok() {
				y |= c.bit()
			}
		}
	}
	return y
}

// naiveKnightDistance is a breadth-first search over knight moves.
func naiveKnightDistance(a, b int) int {
	dist := [64]int{}
	for i := range dist {
		dist[i] = -1
	}
	dist[a] = 0
	queue := []int{a}
	for len(queue) > 0 {
		s := queue[0]
		queue = queue[1:]
		for _, d := range knightSteps {
			if c := at(s).add(d); c.ok() && dist[c.sq()] < 0 {
				dist[c.sq()] = dist[s] + 1
				queue = append(queue, c.sq())
			}
		}
	}
	return dist[b]
}
