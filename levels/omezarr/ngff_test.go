package omezarr

import (
	"encoding/json"
	"reflect"
	"strconv"
	"strings"
	"testing"

	"vastview/loader"
)

// checkMultiscales checks the "multiscales" list of an OME-NGFF 0.4
// (.zattrs) or 0.5 (attributes.ome) document against the source's metadata:
// one image with the given name; axes named and typed in the order OME-NGFF
// requires, with the source's units; one dataset per level with path "k", a
// scale then a translation equal to the level's, in the written axis order.
func checkMultiscales(t *testing.T, list any, ngff string, m *loader.Meta, name, typ string) {
	t.Helper()
	mss, ok := list.([]any)
	if !ok || len(mss) != 1 {
		t.Fatalf("multiscales = %v, want a list of one", list)
	}
	ms := mss[0].(map[string]any)
	if v, has := ms["version"]; ngff == "0.4" && v != "0.4" || ngff == "0.5" && has {
		t.Errorf("multiscales version = %v (present %v) for NGFF %s", v, has, ngff)
	}
	if ms["name"] != name {
		t.Errorf("name = %v, want %q", ms["name"], name)
	}
	if got, _ := ms["type"].(string); got != typ {
		t.Errorf("type = %q, want %q", got, typ)
	}
	order := ngffAxes(m.Axes)
	axes := ms["axes"].([]any)
	if len(axes) != len(order) || len(axes) < 2 || len(axes) > 5 {
		t.Fatalf("axes = %v, want %d", axes, len(order))
	}
	rank := map[string]int{"time": 0, "channel": 1, "space": 2}
	prev, spaces := -1, 0
	for j, a := range axes {
		ax := a.(map[string]any)
		letter := order[j]
		if ax["name"] != strings.ToLower(string(letter)) {
			t.Errorf("axis %d name = %v, want %c", j, ax["name"], letter+'a'-'A')
		}
		want := map[byte]string{'T': "time", 'C': "channel", 'Z': "space", 'Y': "space", 'X': "space"}[letter]
		if ax["type"] != want {
			t.Errorf("axis %v type = %v, want %s", ax["name"], ax["type"], want)
		}
		r := rank[want]
		if r < prev || (r < 2 && r == prev) {
			t.Errorf("axis %v out of OME-NGFF order", ax["name"])
		}
		prev = r
		if r == 2 {
			spaces++
		}
		unit := m.Units[m.AxisIndex(letter)]
		if letter == 'C' || unit == "pixel" {
			unit = "" // no unit on channels; not an OME-NGFF unit
		}
		if got, has := ax["unit"]; unit == "" && has || unit != "" && got != unit {
			t.Errorf("axis %v unit = %v (present %v), want %q", ax["name"], got, has, unit)
		}
	}
	if spaces != 2 && spaces != 3 {
		t.Errorf("%d space axes", spaces)
	}
	ds := ms["datasets"].([]any)
	if len(ds) != len(m.Levels) {
		t.Fatalf("%d datasets, want %d", len(ds), len(m.Levels))
	}
	for k, d := range ds {
		dm := d.(map[string]any)
		if dm["path"] != strconv.Itoa(k) {
			t.Errorf("dataset %d path = %v", k, dm["path"])
		}
		l := m.Levels[k]
		want := []any{
			map[string]any{"type": "scale", "scale": floats(reorder(l.Scale, m.Axes, order))},
			map[string]any{"type": "translation", "translation": floats(reorder(l.Translation, m.Axes, order))},
		}
		if got := dm["coordinateTransformations"]; !reflect.DeepEqual(got, want) {
			t.Errorf("dataset %d transformations = %v, want %v", k, got, want)
		}
	}
}

// reorder returns v (per axis of axes) in the order of the letters order.
func reorder[T any](v []T, axes, order string) []T {
	out := make([]T, len(order))
	for j := range order {
		out[j] = v[strings.IndexByte(axes, order[j])]
	}
	return out
}

// floats is v as JSON decodes it into an interface.
func floats(v []float64) []any {
	out := make([]any, len(v))
	for i, f := range v {
		out[i] = f
	}
	return out
}

// ints is v as JSON decodes it into an interface.
func ints(v []int) []any {
	out := make([]any, len(v))
	for i, n := range v {
		out[i] = float64(n)
	}
	return out
}

// decodeJSON parses b into a generic value.
func decodeJSON(t *testing.T, b []byte) map[string]any {
	t.Helper()
	var v map[string]any
	if err := json.Unmarshal(b, &v); err != nil {
		t.Fatalf("%v: %s", err, b)
	}
	return v
}
