package zarr

import (
	"context"
	"reflect"
	"testing"
)

// TestGroups opens images reached through groups: a bioformats2raw
// series, an OME-NGFF 0.5 labels group, OME-NGFF 0.1 without axes, and
// multiscales outside the "ome" attribute of a Zarr v3 group.
func TestGroups(t *testing.T) {
	v2array := func(shape, chunks string) string {
		return `{"zarr_format": 2, "shape": ` + shape + `, "chunks": ` + chunks + `, "dtype": "|u1",
			"compressor": null, "fill_value": 3, "order": "C", "filters": null}`
	}
	v3array := `{"zarr_format": 3, "node_type": "array", "shape": [6, 8], "data_type": "uint8",
		"chunk_grid": {"name": "regular", "configuration": {"chunk_shape": [4, 4]}},
		"chunk_key_encoding": {"name": "default"}, "fill_value": 3, "codecs": [{"name": "bytes"}]}`
	ms := `[{"axes": [{"name": "y", "type": "space"}, {"name": "x", "type": "space"}],
		"datasets": [{"path": "0", "coordinateTransformations": [{"type": "scale", "scale": [1, 1]}]}]}]`
	for _, c := range []struct {
		name        string
		files       map[string]string
		axes        string
		shape       []int
		label       bool
		paletteSize int
		labels      []string // the label images offered
	}{
		{"bioformats2raw", map[string]string{
			".zattrs": `{"bioformats2raw.layout": 3}`, ".zgroup": `{"zarr_format": 2}`,
			"0/.zattrs": `{"multiscales": ` + ms + `}`, "0/0/.zarray": v2array("[6, 8]", "[4, 4]"),
			"0/labels/.zattrs": `{"labels": ["cells", "../bad", "nuclei"]}`,
		}, "YX", []int{6, 8}, false, 0, []string{"0/labels/cells", "0/labels/nuclei"}},
		{"v0.5 labels group", map[string]string{
			"zarr.json":          `{"zarr_format": 3, "node_type": "group", "attributes": {"ome": {"version": "0.5", "labels": ["nuclei", "other"]}}}`,
			"nuclei/zarr.json":   `{"zarr_format": 3, "node_type": "group", "attributes": {"ome": {"version": "0.5", "multiscales": ` + ms + `, "image-label": {"colors": [{"label-value": 2, "rgba": [1, 2, 3, 4]}]}}}}`,
			"nuclei/0/zarr.json": v3array,
		}, "YX", []int{6, 8}, true, 3, nil},
		{"v0.1 without axes", map[string]string{
			".zattrs":   `{"multiscales": [{"version": "0.1", "datasets": [{"path": "0"}, {"path": "1"}]}]}`,
			"0/.zarray": v2array("[1, 2, 3, 16, 16]", "[1, 1, 1, 16, 16]"),
			"1/.zarray": v2array("[1, 2, 3, 8, 8]", "[1, 1, 1, 8, 8]"),
		}, "TCZYX", []int{1, 2, 3, 16, 16}, false, 0, nil},
		{"v3 multiscales without ome", map[string]string{
			"zarr.json":        `{"zarr_format": 3, "node_type": "group", "attributes": {"multiscales": ` + ms + `}}`,
			"0/zarr.json":      v3array,
			"labels/zarr.json": `{"zarr_format": 3, "node_type": "group", "attributes": {"ome": {"version": "0.5", "labels": ["a"]}}}`,
		}, "YX", []int{6, 8}, false, 0, []string{"labels/a"}},
	} {
		t.Run(c.name, func(t *testing.T) {
			files := map[string][]byte{}
			for k, v := range c.files {
				files[k] = []byte(v)
			}
			src, err := OpenStore(context.Background(), newMemStore(files))
			if err != nil {
				t.Fatal(err)
			}
			defer src.Close()
			m := src.Meta()
			if m.Format != "ome-zarr" || m.Axes != c.axes || !reflect.DeepEqual(m.Shape, c.shape) || m.Label != c.label || len(m.Palette) != c.paletteSize {
				t.Errorf("format %q axes %q shape %v label %v palette %v", m.Format, m.Axes, m.Shape, m.Label, m.Palette)
			}
			if !reflect.DeepEqual(m.Labels, c.labels) {
				t.Errorf("labels offered: %q, want %q", m.Labels, c.labels)
			}
			if err := m.Validate(); err != nil {
				t.Error(err)
			}
			// No chunk is stored: every sample reads as the fill value 3.
			b, missing := readLevel(t, src, 0)
			if missing == 0 || b[0] != 3 || b[len(b)-1] != 3 {
				t.Errorf("%d chunks missing, samples %d..%d", missing, b[0], b[len(b)-1])
			}
		})
	}
}
