package volume

import (
	"encoding/binary"
	"encoding/json"
	"image"
	"math"
	"os"
	"path/filepath"
	"strconv"
	"testing"

	"vastview/base/testtool"
	"vastview/loader"
	"vastview/render"
	"vastview/render/oblique"
)

// labelsReference writes labels.npy, a uint32 ZYX label volume (a few
// ellipsoids, ids from 3 to 70001, the rest 0), and casts the rays of
// each case of cases.json through it with NumPy: for output sample
// (i, j) the point P = C + (j − (W−1)/2)·S·U + (i − (H−1)/2)·S·V, its
// points P + k·D·w for k = −K..K in order, each inside the image's box
// (its nearest image sample floor(P/sp_img + 0.5) within the image),
// the clip box (that sample within [lo, hi)) and the clip plane
// ((x − point)·normal ≥ 0); at each, the nearest label sample of x·scale
// + shift (floor(x_l/sp_lab + 0.5), outside the label volume: 0). The
// ray's id is that of its first point with a non-zero id. It writes the
// ids (uint32) to ids_N.raw and, to amb_N.raw, the rays one of whose
// points lies within 1e-7 of a rounding tie (skipped by the test).
const labelsReference = `
import sys, json, os, numpy as np
d = sys.argv[1]
z, y, x = np.mgrid[0:19, 0:41, 0:70]
lab = np.zeros(z.shape, np.uint32)
for (cz, cy, cx, rz, ry, rx, i) in [(9, 20, 35, 4, 9, 12, 3), (4, 10, 15, 3, 6, 8, 17), (14, 30, 52, 4, 8, 10, 300),
                                    (10, 8, 55, 3, 5, 6, 70001), (6, 32, 20, 2, 4, 9, 255)]:
    lab[((z - cz) / rz) ** 2 + ((y - cy) / ry) ** 2 + ((x - cx) / rx) ** 2 <= 1] = i
np.save(os.path.join(d, 'labels.npy'), lab)
cases = json.load(open(os.path.join(d, 'cases.json')))
snap, tie = 1e-9, 1e-7
for ci, c in enumerate(cases):
    a = lab[::c['sub'], ::c['sub'], ::c['sub']] if c['sub'] > 1 else lab
    H, W, S, D = c['H'], c['W'], c['pixel'], c['step']
    C, U, V, w = (np.array(c[k], float)[:, None, None] for k in ('center', 'U', 'V', 'w'))
    spi, spl = np.array(c['sp_img'])[:, None, None], np.array(c['sp_lab'])[:, None, None]
    ni, nl = np.array(c['n_img'])[:, None, None], np.array(a.shape)[:, None, None]
    sc, sh = np.array(c['scale'])[:, None, None], np.array(c['shift'])[:, None, None]
    lo, hi = np.array(c['lo'])[:, None, None], np.array(c['hi'])[:, None, None]
    i, j = np.mgrid[0:H, 0:W].astype(float)
    P = C + (j - (W - 1) / 2) * S * U + (i - (H - 1) / 2) * S * V
    K = int(np.linalg.norm(ni.ravel() * spi.ravel()) / D) + 4 + int(np.abs(P).max() / D)
    ids = np.zeros((H, W), np.uint32); amb = np.zeros((H, W), bool)
    for k in range(-K, K + 1):
        X = P + k * D * w
        t = X / spi + 0.5
        fi = np.floor(t + snap)
        ok = np.all((fi >= lo) & (fi < hi), axis=0)
        amb |= np.any(np.abs(t - np.round(t)) < tie, axis=0)
        if c['plane']:
            pt, nn = np.array(c['point'])[:, None, None], np.array(c['normal'])[:, None, None]
            s = ((X - pt) * nn).sum(axis=0)
            ok &= s >= 0
            amb |= np.abs(s) < tie
        tl = (X * sc + sh) / spl + 0.5
        fl = np.floor(tl + snap).astype(np.int64)
        inl = np.all((fl >= 0) & (fl < nl), axis=0)
        amb |= np.any(np.abs(tl - np.round(tl)) < tie, axis=0)
        fl = np.clip(fl, 0, nl - 1)
        v = np.where(inl, a[fl[0], fl[1], fl[2]], 0)
        first = ok & (v != 0) & (ids == 0)
        ids[first] = v[first]
    ids.astype('<u4').tofile(os.path.join(d, 'ids_%d.raw' % ci))
    amb.astype(np.uint8).tofile(os.path.join(d, 'amb_%d.raw' % ci))
`

type labelCase struct {
	H      int         `json:"H"`
	W      int         `json:"W"`
	Pixel  float64     `json:"pixel"`
	Step   float64     `json:"step"`
	Center oblique.Vec `json:"center"`
	U      oblique.Vec `json:"U"`
	V      oblique.Vec `json:"V"`
	Wd     oblique.Vec `json:"w"`
	SpImg  oblique.Vec `json:"sp_img"`
	SpLab  oblique.Vec `json:"sp_lab"`
	NImg   [3]int      `json:"n_img"`
	Scale  oblique.Vec `json:"scale"`
	Shift  oblique.Vec `json:"shift"`
	Lo     [3]int      `json:"lo"`
	Hi     [3]int      `json:"hi"`
	Plane  bool        `json:"plane"`
	Point  oblique.Vec `json:"point"`
	Normal oblique.Vec `json:"normal"`
	Sub    int         `json:"sub"`
}

// The first label each ray meets equals a NumPy ray caster written from
// the definition, on anisotropic data turned several ways, with a clip
// box, a clip plane, and a label volume of another resolution mapped
// onto the image.
func TestLabelsFirstHitMatchesNumPy(t *testing.T) {
	testtool.RequirePython(t, "numpy")
	dir := t.TempDir()
	sp := oblique.Vec{3, 1, 1.5}
	n := [3]int{19, 41, 70}
	var cases []labelCase
	type variant struct {
		clip      Box
		plane     *ClipPlane
		sub       int
		step, pix float64
	}
	variants := []variant{
		{step: 0.9, pix: 1.3},
		{step: 0.7, pix: 1.1, clip: Box{Lo: [3]int{2, 5, 9}, Hi: [3]int{15, 33, 60}}},
		{step: 1.1, pix: 1.2, plane: &ClipPlane{Point: oblique.Vec{27, 20, 50}, Normal: oblique.Vec{0.3, -0.5, 0.8}}},
		{step: 0.8, pix: 1.4, sub: 2},
	}
	type run struct {
		p oblique.Plane
		o Options
		v variant
	}
	var runs []run
	meta := loader.NewMeta("mem", "ZYX", n[:], loader.Uint16, []int{5, 16, 16}, sp[:], nil)
	for _, v := range variants {
		for _, ts := range turns {
			p := planeOf(meta, ts, 37, 61, v.pix)
			_, _, w := basisOf(p)
			c := labelCase{H: p.H, W: p.W, Pixel: p.Pixel, Step: v.step, Center: p.Center, U: p.U, V: p.V, Wd: w,
				SpImg: sp, SpLab: sp, NImg: n, Scale: oblique.Vec{1, 1, 1}, Hi: n, Sub: 1}
			if !v.clip.IsZero() {
				c.Lo, c.Hi = v.clip.Lo, v.clip.Hi
			}
			if v.plane != nil {
				c.Plane, c.Point, c.Normal = true, v.plane.Point, v.plane.Normal
			}
			if v.sub > 1 {
				// Every other sample of the labels, with twice the
				// spacing, shifted by a quarter of the image's spacing
				// and mapped back by Shift.
				c.Sub = v.sub
				c.SpLab = sp.Scale(float64(v.sub))
				c.Shift = sp.Scale(0.25)
			}
			cases = append(cases, c)
			runs = append(runs, run{p: p, o: Options{Mode: MIP, Step: v.step, Clip: v.clip, ClipPlane: v.plane}, v: v})
		}
	}
	js, _ := json.Marshal(cases)
	if err := os.WriteFile(filepath.Join(dir, "cases.json"), js, 0o644); err != nil {
		t.Fatal(err)
	}
	testtool.RunPython(t, labelsReference, dir)
	_, shape, data := testtool.ReadNPY(t, filepath.Join(dir, "labels.npy"))
	ids := func(sub int) *memSrc {
		s := []int{(shape[0] + sub - 1) / sub, (shape[1] + sub - 1) / sub, (shape[2] + sub - 1) / sub}
		lsp := sp.Scale(float64(sub))
		return newSrc(loader.Uint32, s, []int{4, 8, 16}, lsp[:], func(z, y, x int) float64 {
			return float64(binary.LittleEndian.Uint32(data[4*((z*sub*shape[1]+y*sub)*shape[2]+x*sub):]))
		})
	}
	img := newSrc(loader.Uint16, n[:], []int{5, 16, 16}, sp[:], hashed)
	labs := map[int]*memSrc{1: ids(1), 2: ids(2)}
	var r Renderer
	r.Workers = 3
	defer r.Close()
	hits := 0
	for ci, ru := range runs {
		c := cases[ci]
		o := ru.o
		o.Labels = []Labels{{Src: labs[c.Sub], Shift: c.Shift}}
		dst := image.NewRGBA(image.Rect(0, 0, ru.p.W, ru.p.H))
		info := r.RenderRGBA(dst, ru.p, img, 0, o, nil)
		if !info.Complete || info.Missing != 0 {
			t.Fatalf("case %d: %+v", ci, info)
		}
		got := r.LabelIDs()
		want, err := os.ReadFile(filepath.Join(dir, "ids_"+itoa(ci)+".raw"))
		if err != nil {
			t.Fatal(err)
		}
		amb, _ := os.ReadFile(filepath.Join(dir, "amb_"+itoa(ci)+".raw"))
		bad := 0
		for q := range got {
			if amb[q] != 0 {
				continue
			}
			w := binary.LittleEndian.Uint32(want[4*q:])
			hits += b2i(w != 0)
			if got[q] != w {
				if bad++; bad <= 4 {
					t.Errorf("case %d (%+v): ray (%d,%d) shows label %d, want %d", ci, ru.v, q/ru.p.W, q%ru.p.W, got[q], w)
				}
			}
		}
		if bad > 0 {
			t.Errorf("case %d: %d of %d rays differ", ci, bad, len(got))
		}
	}
	if hits < len(runs)*100 {
		t.Errorf("only %d rays meet a label: the cases test little", hits)
	}
}

func itoa(i int) string { return strconv.Itoa(i) }

// labelScene is an image with a bright slab across z 8..10 and a label
// volume with label 5 at z 2..3 in the left half and label 9 at z 15..16
// in the right half, looked at along +z (w = U × V): the left half's
// label is in front of the slab, the right half's behind it.
func labelScene() (img, lab *memSrc, p oblique.Plane) {
	shape, chunk := []int{20, 16, 16}, []int{5, 8, 8}
	img = newSrc(loader.Uint8, shape, chunk, nil, func(z, y, x int) float64 {
		if z >= 8 && z <= 10 {
			return 200
		}
		return 0
	})
	lab = newSrc(loader.Uint16, shape, chunk, nil, func(z, y, x int) float64 {
		switch {
		case x < 8 && z >= 2 && z <= 3:
			return 5
		case x >= 8 && z >= 15 && z <= 16:
			return 9
		}
		return 0
	})
	return img, lab, planeOf(img.meta, nil, 16, 16, 1)
}

// The label surfaces are drawn in their palette colours, shaded (a
// surface facing the eye at full light), over the projections always, and
// with Iso and Alpha only where nothing opaque is in front of them.
func TestLabelsCompositeWithTheImage(t *testing.T) {
	img, lab, p := labelScene()
	if _, _, w := basisOf(p); w[0] <= 0 {
		t.Fatalf("the scene expects rays along +z, got %v", w)
	}
	var r Renderer
	defer r.Close()
	c5, c9 := render.LabelColour(5), render.LabelColour(9)
	at := func(dst *image.RGBA, x int) [3]uint8 {
		c := dst.RGBAAt(x, 8)
		return [3]uint8{c.R, c.G, c.B}
	}
	base := Options{Window: [2]float64{0, 200}, Iso: 100, Opacity: 1, Labels: []Labels{{Src: lab}}}
	for _, mode := range []Mode{Mean, MIP, Iso, Alpha} {
		o := base
		o.Mode = mode
		dst := image.NewRGBA(image.Rect(0, 0, p.W, p.H))
		r.RenderRGBA(dst, p, img, 0, o, nil)
		// In front of the slab: label 5's colour in every mode (the
		// surface faces the eye: full light).
		if got := at(dst, 3); got != c5 {
			t.Errorf("%v: pixel over the front label %v, want its colour %v", mode, got, c5)
		}
		got := at(dst, 12)
		switch mode {
		case MIP, Mean:
			if got != c9 {
				t.Errorf("%v: pixel over the label behind the slab %v, want the label over the projection %v", mode, got, c9)
			}
		case Iso, Alpha:
			// The slab (opaque: at the top of the window with opacity 1)
			// hides it: its colour is gray.
			if got[0] != got[1] || got[1] != got[2] || got == c9 {
				t.Errorf("%v: pixel over the label behind the slab %v, want the slab's gray", mode, got)
			}
		}
		if ids := r.LabelIDs(); ids[8*p.W+3] != 5 || ids[8*p.W+12] != 9 {
			t.Errorf("%v: ids %d, %d; want 5, 9", mode, ids[8*p.W+3], ids[8*p.W+12])
		}
	}
	// The file's palette colours its labels; others keep glasbey's.
	o := base
	o.Mode = MIP
	o.Labels = []Labels{{Src: lab, Palette: [][3]uint16{5: {0xffff, 0, 0}}}}
	dst := image.NewRGBA(image.Rect(0, 0, p.W, p.H))
	r.RenderRGBA(dst, p, img, 0, o, nil)
	if got := at(dst, 3); got != [3]uint8{255, 0, 0} {
		t.Errorf("palette colour %v, want red", got)
	}
	if got := at(dst, 12); got != c9 {
		t.Errorf("label beyond the palette %v, want %v", got, c9)
	}
	// Only the selected label.
	o.Labels = []Labels{{Src: lab, Selected: 5}}
	r.RenderRGBA(dst, p, img, 0, o, nil)
	if ids := r.LabelIDs(); ids[8*p.W+12] != 0 || ids[8*p.W+3] != 5 {
		t.Errorf("with label 5 selected: ids %d, %d; want 5, 0", ids[8*p.W+3], ids[8*p.W+12])
	}
}

// A slanted label surface is shaded darker than one facing the eye.
func TestLabelsAreShaded(t *testing.T) {
	shape, chunk := []int{24, 24, 24}, []int{8, 8, 8}
	img := newSrc(loader.Uint8, shape, chunk, nil, func(z, y, x int) float64 { return 0 })
	lab := newSrc(loader.Uint8, shape, chunk, nil, func(z, y, x int) float64 {
		if z <= x { // a plane at 45° to the rays along z
			return 1
		}
		return 0
	})
	p := planeOf(img.meta, nil, 24, 24, 1)
	var r Renderer
	defer r.Close()
	dst := image.NewRGBA(image.Rect(0, 0, p.W, p.H))
	r.RenderRGBA(dst, p, img, 0, Options{Mode: MIP, Labels: []Labels{{Src: lab}}}, nil)
	c := render.LabelColour(1)
	got := dst.RGBAAt(12, 12)
	want := float64(c[0]) * (ambient + (1-ambient)*math.Sqrt(0.5))
	if math.Abs(float64(got.R)-want) > 3 {
		t.Errorf("slanted surface red %d, want about %.0f (the colour %v at cos 45°)", got.R, want, c)
	}
}

// Label chunks not in memory are drawn from the coarser level, the
// picture is incomplete, and they are asked for from the label volume.
func TestLabelsMissingChunksAreAskedFor(t *testing.T) {
	img, lab, p := labelScene()
	lab.cached = func(level int, idx []int) bool { return level == 1 }
	var r Renderer
	defer r.Close()
	dst := image.NewRGBA(image.Rect(0, 0, p.W, p.H))
	info := r.RenderRGBA(dst, p, img, 0, Options{Mode: MIP, Labels: []Labels{{Src: lab}}}, nil)
	if info.Complete || info.Missing == 0 {
		t.Fatalf("info %+v: want incomplete with the label chunks missing", info)
	}
	if ids := r.LabelIDs(); ids[8*p.W+12] == 0 {
		t.Errorf("no label drawn from the coarser level")
	}
	r.Request(img, 0, 1)
	if len(lab.reqs) != info.Missing || len(img.reqs) != 0 {
		t.Errorf("%d requests of labels, %d of the image; want %d, 0", len(lab.reqs), len(img.reqs), info.Missing)
	}
	for _, q := range lab.reqs {
		if q[0] != 0 {
			t.Errorf("request %v: want level 0", q)
		}
	}
}

// Rendering with labels again allocates nothing.
func TestRenderLabelsAllocatesNothingAgain(t *testing.T) {
	img, lab, _ := labelScene()
	p := planeOf(img.meta, turns[3], 40, 40, 1)
	dst := image.NewRGBA(image.Rect(0, 0, p.W, p.H))
	var r Renderer
	r.Workers = 1 // several take tiles in an order that changes from frame to frame
	defer r.Close()
	for _, mode := range []Mode{MIP, Alpha, Iso} {
		o := Options{Mode: mode, Window: [2]float64{0, 255}, Iso: 100, Labels: []Labels{{Src: lab}}}
		r.RenderRGBA(dst, p, img, 0, o, nil)
		if a := testing.AllocsPerRun(5, func() { r.RenderRGBA(dst, p, img, 0, o, nil) }); a != 0 {
			t.Errorf("%v: %v allocations per frame", mode, a)
		}
	}
}

// Drawn again, a view with labels whose chunks have the image's indices
// works out no chunk's range of values again (the image's and the
// labels' ranges are kept apart).
func TestLabelsKeepTheImagesChunkRanges(t *testing.T) {
	img, lab, _ := labelScene()
	p := planeOf(img.meta, turns[3], 40, 40, 1)
	dst := image.NewRGBA(image.Rect(0, 0, p.W, p.H))
	var r Renderer
	r.Workers = 1 // each worker keeps its own ranges
	defer r.Close()
	ranges := func() (n int) {
		for _, w := range r.f.ws {
			n += w.sk.ranges
		}
		return n
	}
	o := Options{Mode: MIP, Window: [2]float64{0, 255}, Labels: []Labels{{Src: lab}}}
	r.RenderRGBA(dst, p, img, 0, o, nil)
	first := ranges()
	if first == 0 {
		t.Fatal("no chunk's range worked out: skipping is off")
	}
	r.RenderRGBA(dst, p, img, 0, o, nil)
	if n := ranges() - first; n != 0 {
		t.Errorf("drawn again, %d chunk ranges worked out again (%d the first time)", n, first)
	}
}
