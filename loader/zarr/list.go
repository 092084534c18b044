package zarr

import (
	"context"
	"slices"
	"strings"

	"vastview/base/nd"
	"vastview/loader/zarr/store"
)

// Listable reports whether the chunks of a level can be listed: its store
// lists (a folder; not HTTP).
func (s *Source) Listable(level int) bool {
	_, ok := s.st.(store.Lister)
	return ok && level >= 0 && level < len(s.levels)
}

// Fill returns one sample of the level's fill value.
func (s *Source) Fill(level int) []byte { return s.levels[level].fill }

// StoredChunks calls fn with the index of each chunk of the level that is
// stored and equals at on every axis but the two in free, from a listing
// of the folders the keys of those chunks lie in: the array's folder for
// "." separated keys, the folders of the fixed indices for "/" separated
// ones. Of a sharded array, the shards are listed, and every inner chunk
// of the plane in a shard that is stored is handed on. It is safe for
// concurrent use.
func (s *Source) StoredChunks(ctx context.Context, level int, at []int, free [2]int, fn func(idx []int) error) error {
	ls, ok := s.st.(store.Lister)
	if !ok || !s.Listable(level) {
		return unsupported("the store cannot be listed")
	}
	a := s.levels[level]
	n := len(a.shape)
	grid := a.grid()
	if sh := a.shard; sh != nil {
		// List the shards, then hand on the plane's inner chunks of each.
		inner, innerAt := grid, at
		grid, at = make([]int, n), slices.Clone(at)
		for i := range grid {
			grid[i] = (inner[i] + sh.per[i] - 1) / sh.per[i]
			at[i] /= sh.per[i]
		}
		whole := fn
		out := make([]int, n)
		fn = func(shard []int) error {
			lo, span := make([]int, n), make([]int, n)
			for i := range n {
				lo[i], span[i] = innerAt[i], 1
				if i == free[0] || i == free[1] {
					lo[i] = shard[i] * sh.per[i]
					span[i] = min(sh.per[i], inner[i]-lo[i])
				}
			}
			for p := make([]int, n); ; {
				for i := range n {
					out[i] = lo[i] + p[i]
				}
				if err := whole(out); err != nil {
					return err
				}
				if !nd.Next(p, span) {
					return nil
				}
			}
		}
	}
	idx := make([]int, n)
	// wanted reports whether index v on axis d belongs to the plane.
	wanted := func(d, v int) bool {
		if d == free[0] || d == free[1] {
			return v < grid[d]
		}
		return v == at[d]
	}
	dir := strings.TrimSuffix(a.dir, "/")
	if a.keys.sep == '.' {
		pre := ""
		if a.keys.prefix != "" {
			pre = a.keys.prefix + "."
		}
		return ls.List(ctx, dir, func(name string, folder bool) error {
			rest, ok := strings.CutPrefix(name, pre)
			if folder || !ok {
				return nil
			}
			d := 0
			for part := range strings.SplitSeq(rest, ".") {
				v, ok := keyIndex(part)
				if !ok || d >= n || !wanted(d, v) {
					return nil
				}
				idx[d] = v
				d++
			}
			if d != n {
				return nil
			}
			return fn(idx)
		})
	}
	if a.keys.prefix != "" {
		dir = joinKey(dir, a.keys.prefix)
	}
	var walk func(d int, dir string) error
	walk = func(d int, dir string) error {
		return ls.List(ctx, dir, func(name string, folder bool) error {
			v, ok := keyIndex(name)
			if !ok || !wanted(d, v) || folder != (d < n-1) {
				return nil
			}
			idx[d] = v
			if d == n-1 {
				return fn(idx)
			}
			return walk(d+1, joinKey(dir, name))
		})
	}
	if n == 0 {
		return nil
	}
	return walk(0, dir)
}

// keyIndex parses a chunk index as keys write it: decimal digits, no sign,
// no leading zero.
func keyIndex(s string) (int, bool) {
	if s == "" || len(s) > 18 || (len(s) > 1 && s[0] == '0') {
		return 0, false
	}
	v := 0
	for _, c := range []byte(s) {
		if c < '0' || c > '9' {
			return 0, false
		}
		v = v*10 + int(c-'0')
	}
	return v, true
}

func joinKey(dir, name string) string {
	if dir == "" {
		return name
	}
	return dir + "/" + name
}
