package omezarr

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"sync/atomic"
	"testing"

	"vastview/levels"
	"vastview/loader"
)

// tree returns every file under dir (slash paths) with its bytes.
func tree(t *testing.T, dir string) map[string][]byte {
	t.Helper()
	files := map[string][]byte{}
	err := filepath.WalkDir(dir, func(p string, d fs.DirEntry, err error) error {
		if err != nil || d.IsDir() {
			return err
		}
		b, err := os.ReadFile(p)
		rel, _ := filepath.Rel(dir, p)
		files[filepath.ToSlash(rel)] = b
		return err
	})
	if err != nil {
		t.Fatal(err)
	}
	return files
}

// sameTree reports whether two output folders hold the same files, and
// every difference as an error.
func sameTree(t *testing.T, want, got string) bool {
	t.Helper()
	a, b := tree(t, want), tree(t, got)
	ok := true
	for k, v := range a {
		if w, in := b[k]; !in {
			t.Errorf("%s missing", k)
			ok = false
		} else if !bytes.Equal(v, w) {
			t.Errorf("%s differs", k)
			ok = false
		}
	}
	for k := range b {
		if _, in := a[k]; !in {
			t.Errorf("%s is extra", k)
			ok = false
		}
	}
	return ok && len(a) > 0
}

// partCase is a source whose levels are written in parts: fresh makes it
// (a pyramid over it where levels are computed).
type partCase struct {
	name  string
	fresh func() loader.Source
	opts  Options
	parts []int // the numbers of parts to try
}

func pyramidOf(t *testing.T, src loader.Source, mode bool) func() loader.Source {
	return func() loader.Source {
		p, err := levels.Open(src, levels.Options{Mode: mode})
		if err != nil {
			t.Fatal(err)
		}
		return p
	}
}

func partCases(t *testing.T) []partCase {
	planes := build(spec{axes: "ZYX", dtype: loader.Uint8, shape: []int{45, 600, 540}, chunk: []int{1, 600, 540}, levels: 1,
		spacing: []float64{0.5, 0.5, 0.5}, sparse: true}, 1)
	chunked := build(spec{axes: "ZYX", dtype: loader.Float32, shape: []int{21, 530, 300}, chunk: []int{5, 64, 64}, levels: 1,
		spacing: []float64{0.25, 0.25, 0.25}}, 2)
	hyper := build(spec{axes: "ZCYX", dtype: loader.Uint8, shape: []int{20, 2, 600, 300}, chunk: []int{1, 1, 600, 300}, levels: 1,
		spacing: []float64{0.3, 1, 0.1, 0.1}}, 3)
	labels := build(spec{axes: "ZYX", dtype: loader.Uint8, shape: []int{26, 300, 270}, chunk: []int{3, 64, 64}, levels: 1,
		spacing: []float64{0.1, 0.1, 0.1}}, 4)
	movie := build(spec{axes: "TYX", dtype: loader.Uint8, shape: []int{9, 300, 20}, chunk: []int{1, 300, 20}, levels: 1}, 5)
	stored := build(spec{axes: "ZYX", dtype: loader.Int16, shape: []int{24, 40, 30}, chunk: []int{4, 8, 8}, levels: 3}, 6)
	return []partCase{
		// 1 and 2 parts share every level, 4 all but the last, 7 level 0 only.
		{"planes", pyramidOf(t, planes, false), Options{}, []int{1, 2, 4, 7}},
		{"planes-sharded", pyramidOf(t, planes, false), Options{Version: 3, Shard: []int{8, 256, 0}}, []int{3, 7}},
		{"chunked-v3-gzip", pyramidOf(t, chunked, false), Options{Version: 3, Codec: "gzip", Shard: []int{0, 0, 0}}, []int{3, 7}},
		{"hyperstack", pyramidOf(t, hyper, false), Options{}, []int{3}},
		{"labels", pyramidOf(t, labels, true), Options{Type: "mode", Codec: "none"}, []int{2}},
		{"movie", pyramidOf(t, movie, false), Options{}, []int{4}},
		{"stored-levels", func() loader.Source { return stored }, Options{}, []int{3, 40}},
	}
}

// TestPartsEqualOneRun writes sources of every kind (whole planes streamed
// through every level, chunks computed level by level, axes reordered,
// labels, a movie, a source with its own levels) in N parts and a finish,
// and checks that the output equals that of one run byte for byte.
func TestPartsEqualOneRun(t *testing.T) {
	ctx := context.Background()
	for _, c := range partCases(t) {
		dir := t.TempDir()
		plain := filepath.Join(dir, "plain", "img.ome.zarr")
		os.MkdirAll(filepath.Dir(plain), 0o755)
		src := c.fresh()
		if err := Write(ctx, plain, src, c.opts); err != nil {
			t.Fatalf("%s: %v", c.name, err)
		}
		src.Close()
		for _, n := range c.parts {
			out := filepath.Join(dir, "parts"+string(rune('a'+n%26)), "img.ome.zarr")
			for i := 1; i <= n; i++ {
				o := c.opts
				o.Part, o.Parts = i, n
				src := c.fresh()
				err := Write(ctx, out, src, o)
				src.Close()
				if err != nil {
					t.Fatalf("%s part %d/%d: %v", c.name, i, n, err)
				}
			}
			if hasMetadata(context.Background(), folderOutput{out}) {
				t.Fatalf("%s: parts wrote the metadata", c.name)
			}
			o := c.opts
			o.Finish = true
			src := c.fresh()
			err := Write(ctx, out, src, o)
			src.Close()
			if err != nil {
				t.Fatalf("%s finish of %d: %v", c.name, n, err)
			}
			if !sameTree(t, plain, out) {
				t.Fatalf("%s in %d parts differs from one run", c.name, n)
			}
		}
	}
}

// countingSource counts the level-0 chunks read, by Z (or first-axis)
// index.
type countingSource struct {
	*memSource
	reads []atomic.Int64
}

func (s *countingSource) ReadChunk(ctx context.Context, level int, idx []int, dst []byte) error {
	if level == 0 {
		s.reads[idx[0]].Add(1)
	}
	return s.memSource.ReadChunk(ctx, level, idx, dst)
}

// TestPartReadsItsSlabOnce checks that each part of a plane-stored volume
// reads its own planes of the source once and no other.
func TestPartReadsItsSlabOnce(t *testing.T) {
	ms := build(spec{axes: "ZYX", dtype: loader.Uint16, shape: []int{64, 300, 270}, chunk: []int{1, 300, 270}, levels: 1}, 7)
	const n = 4
	dir := t.TempDir()
	out := filepath.Join(dir, "img.ome.zarr")
	seen := make([]int64, 64)
	for i := 1; i <= n; i++ {
		cs := &countingSource{memSource: ms, reads: make([]atomic.Int64, 64)}
		p, err := levels.Open(cs, levels.Options{})
		if err != nil {
			t.Fatal(err)
		}
		if err := Write(context.Background(), out, p, Options{Part: i, Parts: n}); err != nil {
			t.Fatal(err)
		}
		p.Close()
		var planes int
		for z := range cs.reads {
			r := cs.reads[z].Load()
			if r > 1 {
				t.Errorf("part %d read plane %d %d times", i, z, r)
			}
			planes += int(r)
			seen[z] += r
		}
		if planes != 64/n {
			t.Errorf("part %d read %d planes, want %d", i, planes, 64/n)
		}
	}
	for z, r := range seen {
		if r != 1 {
			t.Errorf("plane %d read %d times by all parts", z, r)
		}
	}
}

// TestFinishNamesWhatIsMissing runs some parts, loses a chunk, and checks
// that the finish names the part not run and the chunk lost, writes no
// metadata, and succeeds once they are written again; a part run again
// keeps the chunks it finds intact and rewrites a damaged one.
func TestFinishNamesWhatIsMissing(t *testing.T) {
	ctx := context.Background()
	c := partCases(t)[0]
	dir := t.TempDir()
	plain := filepath.Join(dir, "plain", "img.ome.zarr")
	os.MkdirAll(filepath.Dir(plain), 0o755)
	src := c.fresh()
	if err := Write(ctx, plain, src, c.opts); err != nil {
		t.Fatal(err)
	}
	src.Close()
	out := filepath.Join(dir, "img.ome.zarr")
	run := func(o Options) error {
		src := c.fresh()
		defer src.Close()
		return Write(ctx, out, src, o)
	}
	for _, i := range []int{1, 3} {
		if err := run(Options{Part: i, Parts: 3}); err != nil {
			t.Fatal(err)
		}
	}
	lost := "0/40/0/0"
	if err := os.Remove(filepath.Join(out, filepath.FromSlash(lost))); err != nil {
		t.Fatal(err)
	}
	err := run(Options{Finish: true})
	var me *MissingError
	if !errors.As(err, &me) || !strings.Contains(err.Error(), "part 2/3 not finished") ||
		!strings.Contains(err.Error(), lost+" (part 3/3)") {
		t.Fatalf("finish: %v", err)
	}
	if hasMetadata(context.Background(), folderOutput{out}) {
		t.Fatal("finish wrote metadata with chunks missing")
	}
	// Damage another chunk of part 3: its rerun writes both again.
	damaged := filepath.Join(out, "0", "41", "0", "0")
	b, _ := os.ReadFile(damaged)
	os.WriteFile(damaged, b[:len(b)/2], 0o644)
	for _, i := range []int{2, 3} {
		if err := run(Options{Part: i, Parts: 3}); err != nil {
			t.Fatal(err)
		}
	}
	recs, err := readRecords(context.Background(), folderOutput{out})
	if err != nil {
		t.Fatal(err)
	}
	for _, r := range recs {
		if r.Part == 3 && (r.Written != 2 || r.Kept == 0) {
			t.Errorf("part 3 run again wrote %d chunks and kept %d, want 2 written", r.Written, r.Kept)
		}
	}
	if err := run(Options{Finish: true}); err != nil {
		t.Fatal(err)
	}
	sameTree(t, plain, out)
	if err := run(Options{Part: 1, Parts: 3}); err == nil {
		t.Error("a part was written into a finished image")
	}
}

// TestFinishRefusesDamagedRecords checks that a part's record whose boxes
// or bits do not fit the image is named as damaged, not trusted.
func TestFinishRefusesDamagedRecords(t *testing.T) {
	ctx := context.Background()
	c := partCases(t)[len(partCases(t))-1] // stored levels: quick
	out := filepath.Join(t.TempDir(), "img.ome.zarr")
	if err := Write(ctx, out, c.fresh(), Options{Part: 1, Parts: 1}); err != nil {
		t.Fatal(err)
	}
	rec := filepath.Join(out, partsDir, recordName(0, 1))
	good, _ := os.ReadFile(rec)
	for _, bad := range []string{
		`"end":[7,5,4]`, `"end":[1000000000,1000000000,1000000000]`, `"lo":[-1,0,0]`, `"stored":"AA=="`,
		`"lo":[1,0,0],"end":[7,5,4]`, // the right number of bits, outside the grid
	} {
		var r map[string]any
		json.Unmarshal(good, &r)
		lv := r["levels"].([]any)[0].(map[string]any)
		var fields map[string]any
		json.Unmarshal([]byte("{"+bad+"}"), &fields)
		for k, v := range fields {
			lv[k] = v
		}
		b, _ := json.Marshal(r)
		os.WriteFile(rec, b, 0o644)
		err := Write(ctx, out, c.fresh(), Options{Finish: true})
		if err == nil || !strings.Contains(err.Error(), "part 1/1 is damaged") {
			t.Errorf("%s: finish says %v", bad, err)
		}
	}
}
