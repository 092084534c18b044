package session

import (
	"fmt"
	"image"
	"math"
	"strconv"
	"strings"
	"testing"

	"vastview/loader"
	"vastview/render"
	"vastview/render/oblique"
)

// TestAnatomyConventions checks the display transform and the edge
// letters of volumes stored in several orders against the radiological
// convention (axial: R at the left, A at the top; coronal: R at the left,
// S at the top; sagittal: A at the left, S at the top) and the
// neurological one (R at the right).
func TestAnatomyConventions(t *testing.T) {
	want := map[Convention]map[string]render.Edges{
		Radiological: {
			"axial":    {Left: "R", Right: "L", Top: "A", Bottom: "P"},
			"coronal":  {Left: "R", Right: "L", Top: "S", Bottom: "I"},
			"sagittal": {Left: "A", Right: "P", Top: "S", Bottom: "I"},
		},
		Neurological: {
			"axial":    {Left: "L", Right: "R", Top: "A", Bottom: "P"},
			"coronal":  {Left: "L", Right: "R", Top: "S", Bottom: "I"},
			"sagittal": {Left: "A", Right: "P", Top: "S", Bottom: "I"},
		},
	}
	for _, codes := range []string{"RAS", "LPS", "LAS", "RPI", "LAI"} {
		an := anatomy{codes: [3]byte{codes[0], codes[1], codes[2]}}
		names := map[render.Orientation]string{render.XY: "axial", render.XZ: "coronal", render.YZ: "sagittal"}
		for c, byName := range want {
			fl := an.flips(c)
			for o, name := range names {
				if got := an.planeName(o); got != name {
					t.Errorf("%s %s: named %q, want %q", codes, o, got, name)
				}
				v := render.View{Orientation: o, Flips: fl}
				if got := an.edges(v); got != byName[name] {
					t.Errorf("%s %s %s: letters %+v, want %+v", codes, c, o, got, byName[name])
				}
			}
		}
		// Storage order flips nothing; its letters say how it lies.
		if fl := an.flips(StorageOrder); fl != [3]render.Flip{} {
			t.Errorf("%s: storage order flips %v", codes, fl)
		}
		v := render.View{Orientation: render.XY}
		if e := an.edges(v); e.Right != string(codes[0]) || e.Bottom != string(codes[1]) {
			t.Errorf("%s in storage order: letters %+v", codes, e)
		}
	}
	// RAS storage is flipped on both axes of every plane; LPS only the
	// rows of coronal and sagittal planes.
	ras := anatomy{codes: [3]byte{'R', 'A', 'S'}}
	if f := ras.flips(Radiological); f != [3]render.Flip{{Col: true, Row: true}, {Col: true, Row: true}, {Col: true, Row: true}} {
		t.Errorf("RAS flips %v", f)
	}
	lps := anatomy{codes: [3]byte{'L', 'P', 'S'}}
	if f := lps.flips(Radiological); f != [3]render.Flip{{}, {Row: true}, {Row: true}} {
		t.Errorf("LPS flips %v", f)
	}
}

// TestParseConvention reads the names --orient and the preferences use.
func TestParseConvention(t *testing.T) {
	for _, c := range []Convention{Radiological, Neurological, StorageOrder} {
		if got, err := ParseConvention(c.String()); err != nil || got != c {
			t.Errorf("ParseConvention(%q) = %v, %v", c, got, err)
		}
	}
	if _, err := ParseConvention("sideways"); err == nil {
		t.Error("ParseConvention(sideways) did not fail")
	}
}

// TestCTPresetsInFileUnits: Alt+1 … Alt+8 set the radiology windows
// (width / level in HU) on stored values through the file's rescale
// (stored × 2 − 1024 here), and leave an MR volume's window alone.
func TestCTPresetsInFileUnits(t *testing.T) {
	for _, modality := range []string{"CT", "MR"} {
		h := newHarness(t, Options{})
		m := loader.NewMeta("mem", "ZYX", []int{4, 32, 48}, loader.Int16, []int{4, 32, 48}, nil, nil)
		m.Modality, m.ValueScale = modality, &loader.ValueScale{Slope: 2, Intercept: -1024}
		m.Anatomy = &loader.Anatomy{Affine: [3][4]float64{{-1, 0, 0, 0}, {0, -1, 0, 0}, {0, 0, 1, 0}}, Space: loader.SpaceLPS}
		h.open(&constSource{meta: m, v: 500}, "/data/ct.dcm")
		before := h.s.View()
		for i, p := range CTPresets {
			h.s.PressWith(string(rune('1'+i)), Mods{Alt: true})
			v := h.s.View()
			if modality == "MR" {
				if v.Lo != before.Lo || v.Hi != before.Hi {
					t.Errorf("MR: %s set the window %g..%g", p.Name, v.Lo, v.Hi)
				}
				continue
			}
			lo, hi := (p.Level-p.Width/2+1024)/2, (p.Level+p.Width/2+1024)/2
			if v.Lo != lo || v.Hi != hi {
				t.Errorf("%s (%g/%g HU): window %g..%g stored, want %g..%g", p.Name, p.Width, p.Level, v.Lo, v.Hi, lo, hi)
			}
		}
	}
}

// TestWorldSpace resamples a volume turned 0.3 rad about the scanner's
// S axis (and scaled per axis) along the world's axes, stored RAS and
// sagittally (ASR): the screen's right and down run toward L and P
// (axial), L and I (coronal), P and I (sagittal) in the radiological
// convention, the right toward R in the neurological, whichever stored
// plane each is; the letters stay; off again, the plane is the stored
// one.
func TestWorldSpace(t *testing.T) {
	c, s := math.Cos(0.3), math.Sin(0.3)
	sp := [3]float64{0.9, 1.1, 2.5} // X, Y, Z
	an := &loader.Anatomy{Space: loader.SpaceRAS, Affine: [3][4]float64{
		{c * sp[0], -s * sp[1], 0, 10}, {s * sp[0], c * sp[1], 0, -5}, {0, 0, sp[2], 3}}}
	worldSpace(t, an, sp, map[Convention]map[render.Orientation][2][3]float64{
		Radiological: {
			render.XY: {{-1, 0, 0}, {0, -1, 0}},
			render.XZ: {{-1, 0, 0}, {0, 0, -1}},
			render.YZ: {{0, -1, 0}, {0, 0, -1}},
		},
		Neurological: {render.XY: {{1, 0, 0}, {0, -1, 0}}},
	})
	// ASR: X toward A, Y toward S, Z toward R, then turned about S.
	asr := &loader.Anatomy{Space: loader.SpaceRAS, Affine: [3][4]float64{
		{-s * sp[0], 0, c * sp[2], 10}, {c * sp[0], 0, s * sp[2], -5}, {0, sp[1], 0, 3}}}
	worldSpace(t, asr, sp, map[Convention]map[render.Orientation][2][3]float64{
		Radiological: {
			render.XY: {{0, -1, 0}, {0, 0, -1}}, // sagittal
			render.XZ: {{-1, 0, 0}, {0, -1, 0}}, // axial
			render.YZ: {{-1, 0, 0}, {0, 0, -1}}, // coronal
		},
		Neurological: {render.XZ: {{1, 0, 0}, {0, -1, 0}}},
	})
}

// worldSpace is TestWorldSpace on a volume of anatomy an and spacing sp
// (X, Y, Z): the screen's right and down in each convention and plane
// run toward the world directions want gives.
func worldSpace(t *testing.T, an *loader.Anatomy, sp [3]float64, want map[Convention]map[render.Orientation][2][3]float64) {
	t.Helper()
	for conv, byPlane := range want {
		h := newHarness(t, Options{})
		h.s.SetConvention(conv)
		m := loader.NewMeta("mem", "ZYX", []int{8, 32, 48}, loader.Uint8, []int{8, 32, 48},
			[]float64{sp[2], sp[1], sp[0]}, []string{"millimeter", "millimeter", "millimeter"})
		m.Anatomy = an
		h.open(&constSource{meta: m, v: 7}, "/data/oblique.nii")
		if note := anatomyNote(m, h.s.View()); !strings.Contains(note, "oblique") {
			t.Errorf("status note %q", note)
		}
		h.s.SetWorldSpace(true)
		if !h.s.WorldSpace() {
			t.Fatal("World Space did not turn on")
		}
		// toward checks that the screen's right and down over plane pl
		// run toward world directions uv.
		toward := func(what string, pl oblique.Plane, uv [2][3]float64) {
			t.Helper()
			for i, vec := range []oblique.Vec{pl.U, pl.V} {
				// physical (Z, Y, X) to world: the affine's columns
				// divided by the spacing.
				var w [3]float64
				for r := range 3 {
					w[r] = an.Affine[r][0]/sp[0]*vec[oblique.X] + an.Affine[r][1]/sp[1]*vec[oblique.Y] + an.Affine[r][2]/sp[2]*vec[oblique.Z]
				}
				for k := range 3 {
					if math.Abs(w[k]-uv[i][k]) > 1e-9 {
						t.Errorf("%s %s: screen %s runs toward world %v, want %v", conv, what, []string{"right", "down"}[i], w, uv[i])
						break
					}
				}
			}
		}
		for o, uv := range byPlane {
			h.s.SetOrientation(o)
			v := h.s.View()
			toward(o.String(), ObliquePlane(m, v), uv)
			ma, _ := anatomyOf(m)
			if e := ma.edges(v); e.Left == "" || e.Top == "" {
				t.Errorf("%s %s: no letters in world space: %+v", conv, o, e)
			}
		}
		// Hover in World Space: the voxel and its world position.
		h.s.SetOrientation(render.XY)
		h.waitFrame(func(f *Frame) bool { return f.View.Turn != (render.Turn{}) && f.View.Orientation == render.XY })
		h.s.Hover(200, 150, true)
		text := h.s.HoverText()
		if m := hoverWorld.FindStringSubmatch(text); m == nil || m[1] != "RAS" {
			t.Errorf("%s: hover in World Space shows %q", conv, text)
		} else {
			var idx [3]float64
			for i := range 3 {
				j, ok := hoverIndex(text, "XYZ"[i])
				if !ok {
					t.Fatalf("no %c in %q", "XYZ"[i], text)
				}
				idx[i] = float64(j)
			}
			w := an.World(idx[0], idx[1], idx[2])
			if got := fmt.Sprintf("RAS %s, %s, %s mm", mm4(w[0]), mm4(w[1]), mm4(w[2])); !strings.Contains(text, got) {
				t.Errorf("%s: hover %q, want %q", conv, text, got)
			}
		}
		if len(byPlane) == 3 { // the four panels in World Space: each laid out as its plane alone
			h.s.Resize(402, 302) // panels of 200 × 150
			h.s.SetWindow(100, 200)
			h.s.SetLayout(FourPanels)
			h.s.mu.Lock()
			od := h.s.orthoDrawLocked(&Scene{d: h.s.data, view: h.s.view})
			h.s.mu.Unlock()
			if od == nil || !od.turned {
				t.Fatal("no turned four panels in World Space")
			}
			for i := range panelProj {
				toward("panel "+panelOrient[i].String(), od.panels[i].plane, byPlane[panelOrient[i]])
			}
			// Each panel has its anatomical letters: every bright pixel
			// of them drawn on a blank panel is bright on the panel (the
			// data black in this window).
			f := h.waitFrame(func(f *Frame) bool { return f.Panel != "" && f.Info.Complete })
			letters := map[string]render.Edges{"axial": {Left: "R", Right: "L", Top: "A", Bottom: "P"},
				"coronal": {Left: "R", Right: "L", Top: "S", Bottom: "I"}, "sagittal": {Left: "A", Right: "P", Top: "S", Bottom: "I"}}
			for i := range panelProj {
				r := od.panels[i].rect
				want := image.NewRGBA(image.Rect(0, 0, r.Dx(), r.Dy()))
				render.DrawEdges(want, letters[PlaneName(m, panelOrient[i])])
				bad, all := 0, 0
				for y := range r.Dy() {
					for x := range r.Dx() {
						if want.RGBAAt(x, y).R > 200 {
							all++
							if c := f.Img.RGBAAt(r.Min.X+x, r.Min.Y+y); c.R <= 200 || c.G <= 200 || c.B <= 200 {
								bad++
							}
						}
					}
				}
				if all == 0 || bad > 0 {
					t.Errorf("%s: panel %s (%s): %d of the %d pixels of its letters are not", conv, panelOrient[i], PlaneName(m, panelOrient[i]), bad, all)
				}
			}
			h.s.SetLayout(SingleView)
		}
		h.s.SetWorldSpace(false)
		if v := h.s.View(); v.Turn != (render.Turn{}) || h.s.WorldSpace() {
			t.Errorf("%s: World Space off leaves the turn %v", conv, v.Turn)
		}
	}
}

// mm4 writes v as the hover does: four decimals at most.
func mm4(v float64) string {
	s := strings.TrimRight(strings.TrimRight(strconv.FormatFloat(v, 'f', 4, 64), "0"), ".")
	if s == "-0" {
		return "0"
	}
	return s
}

// TestWorldTextLabelsItsSpace: DICOM's frame is written LPS, NIfTI's RAS.
func TestWorldTextLabelsItsSpace(t *testing.T) {
	for _, space := range []string{loader.SpaceLPS, loader.SpaceRAS} {
		an := anatomy{space: space, affine: [3][4]float64{{0.5, 0, 0, -10}, {0, 0.5, 0, 20.125}, {0, 0, 2, 0}}}
		if got, want := an.worldText([3]int{3, 4, 5}), space+" -8.5, 22.125, 10 mm"; got != want {
			t.Errorf("%q, want %q", got, want)
		}
	}
}

// TestEveryStorageOrderShowsTheConvention: whatever the order and
// sense of a volume's storage axes (the 48 of them: sagittal and coronal
// acquisitions among them), each plane's letters are the convention's:
// axial R left and A up, coronal R left and S up, sagittal A left and S
// up (neurological: L left), the panels swapped where the stored rows
// are the convention's columns.
func TestEveryStorageOrderShowsTheConvention(t *testing.T) {
	want := map[string][2]string{"axial": {"R", "A"}, "coronal": {"R", "S"}, "sagittal": {"A", "S"}}
	for _, perm := range []string{"RAS", "RSA", "ARS", "ASR", "SRA", "SAR"} {
		for sense := range 8 {
			var an anatomy
			for i := range 3 {
				an.codes[i] = perm[i]
				if sense>>i&1 == 1 {
					an.codes[i] = opposite(perm[i])
				}
			}
			for _, conv := range []Convention{Radiological, Neurological} {
				fl := an.flips(conv)
				for _, o := range []render.Orientation{render.XY, render.XZ, render.YZ} {
					name := an.planeName(o)
					w := want[name]
					if conv == Neurological && w[0] == "R" {
						w[0] = "L"
					}
					e := an.edges(render.View{Orientation: o, Flips: fl})
					if e.Left != w[0] || e.Top != w[1] || e.Right != string(opposite(w[0][0])) || e.Bottom != string(opposite(w[1][0])) {
						t.Errorf("%s %s %s (%s): edges %+v, want %s left, %s up", an.codes[:], conv, o, name, e, w[0], w[1])
					}
				}
			}
		}
	}
}
