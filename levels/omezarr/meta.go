package omezarr

import (
	"encoding/json"
	"fmt"
	"strconv"
	"strings"

	"vastview/loader"
)

// axis is one entry of the multiscales "axes" list.
type axis struct {
	Name string `json:"name"`
	Type string `json:"type"`
	Unit string `json:"unit,omitempty"`
}

// transform is one coordinate transformation of a dataset.
type transform struct {
	Type        string    `json:"type"`
	Scale       []float64 `json:"scale,omitempty"`
	Translation []float64 `json:"translation,omitempty"`
}

// dataset is one level of a multiscale image.
type dataset struct {
	Path       string      `json:"path"`
	Transforms []transform `json:"coordinateTransformations"`
}

// multiscale is one entry of the "multiscales" list; Version is set for
// OME-NGFF 0.4 only (0.5 keeps it in the enclosing "ome" object).
type multiscale struct {
	Version  string    `json:"version,omitempty"`
	Name     string    `json:"name,omitempty"`
	Axes     []axis    `json:"axes"`
	Datasets []dataset `json:"datasets"`
	Type     string    `json:"type,omitempty"`
}

// metadataFiles returns the metadata files of the image, keyed by their
// slash-separated path inside the output folder.
func metadataFiles(lay *layout, opts Options) (map[string][]byte, error) {
	ms := multiscaleOf(lay, opts)
	om := omeroOf(lay, opts.Channels)
	files := map[string][]byte{}
	var err error
	put := func(name string, v any) {
		if err == nil {
			files[name], err = json.MarshalIndent(v, "", "  ")
		}
	}
	if opts.Version == 2 {
		ms.Version = "0.4"
		put(".zgroup", map[string]int{"zarr_format": 2})
		attrs := map[string]any{"multiscales": []multiscale{ms}}
		if om != nil {
			attrs["omero"] = om
		}
		put(".zattrs", attrs)
		for k := range lay.levels {
			put(strconv.Itoa(k)+"/.zarray", zarrayV2(lay, k, opts))
		}
	} else {
		ome := map[string]any{"version": "0.5", "multiscales": []multiscale{ms}}
		if om != nil {
			ome["omero"] = om
		}
		put("zarr.json", map[string]any{
			"zarr_format": 3,
			"node_type":   "group",
			"attributes":  map[string]any{"ome": ome},
		})
		for k := range lay.levels {
			put(strconv.Itoa(k)+"/zarr.json", zarrayV3(lay, k, opts))
		}
	}
	return files, err
}

// multiscaleOf describes the image's levels and axes.
func multiscaleOf(lay *layout, opts Options) multiscale {
	ms := multiscale{Name: opts.Name, Type: opts.Type}
	for j := 0; j < len(lay.axes); j++ {
		ms.Axes = append(ms.Axes, axisOf(lay.axes[j], lay.units[j]))
	}
	for k, l := range lay.levels {
		ms.Datasets = append(ms.Datasets, dataset{
			Path: strconv.Itoa(k),
			Transforms: []transform{
				{Type: "scale", Scale: l.Scale},
				{Type: "translation", Translation: l.Translation},
			},
		})
	}
	return ms
}

// omeroChannel is one channel of the "omero" rendering metadata.
type omeroChannel struct {
	Label  string       `json:"label,omitempty"`
	Color  string       `json:"color,omitempty"`
	Active bool         `json:"active"`
	Window *omeroWindow `json:"window,omitempty"`
}

type omeroWindow struct {
	Min   float64 `json:"min"`
	Max   float64 `json:"max"`
	Start float64 `json:"start"`
	End   float64 `json:"end"`
}

// omeroOf is the "omero" metadata of channels, or nil when none says
// anything.
func omeroOf(lay *layout, chans []loader.Channel) map[string]any {
	if len(chans) == 0 {
		return nil
	}
	lo, hi := lay.dtype.Limits()
	var out []omeroChannel
	for _, c := range chans {
		oc := omeroChannel{Label: c.Label, Active: !c.Hidden}
		if c.HasColor {
			oc.Color = fmt.Sprintf("%02X%02X%02X", c.Color[0], c.Color[1], c.Color[2])
		}
		if c.HasWindow {
			oc.Window = &omeroWindow{Min: min(lo, c.Lo), Max: max(hi, c.Hi), Start: c.Lo, End: c.Hi}
		}
		out = append(out, oc)
	}
	return map[string]any{"channels": out}
}

// axisOf is the OME-NGFF description of axis letter a with the given unit;
// a unit that OME-NGFF does not list for the axis type is left out.
func axisOf(a byte, unit string) axis {
	ax := axis{Name: strings.ToLower(string(a))}
	switch a {
	case 'T':
		ax.Type = "time"
		if _, kind := loader.UnitScale(unit); kind == loader.Time {
			ax.Unit = unit
		}
	case 'C':
		ax.Type = "channel"
	default:
		ax.Type = "space"
		if _, kind := loader.UnitScale(unit); kind == loader.Length {
			ax.Unit = unit
		}
	}
	return ax
}

// zarrayV2 is the .zarray of level k.
func zarrayV2(lay *layout, k int, opts Options) map[string]any {
	l := lay.levels[k]
	var comp any // JSON null for no compression
	if opts.Codec != "none" {
		comp = map[string]any{"id": opts.Codec, "level": opts.Level}
	}
	return map[string]any{
		"zarr_format":         2,
		"shape":               l.Shape,
		"chunks":              l.Chunk,
		"dtype":               dtypeV2(lay.dtype),
		"compressor":          comp,
		"fill_value":          0,
		"order":               "C",
		"filters":             nil,
		"dimension_separator": "/",
	}
}

// zarrayV3 is the zarr.json of level k.
func zarrayV3(lay *layout, k int, opts Options) map[string]any {
	l := lay.levels[k]
	bytesCodec := map[string]any{"name": "bytes"}
	if lay.dtype.Size() > 1 {
		bytesCodec["configuration"] = map[string]any{"endian": "little"}
	}
	codecs := []any{bytesCodec}
	switch opts.Codec {
	case "zstd":
		codecs = append(codecs, map[string]any{"name": "zstd",
			"configuration": map[string]any{"level": opts.Level, "checksum": false}})
	case "gzip":
		codecs = append(codecs, map[string]any{"name": "gzip",
			"configuration": map[string]any{"level": opts.Level}})
	}
	names := make([]string, len(lay.axes))
	for j := range names {
		names[j] = strings.ToLower(lay.axes[j : j+1])
	}
	grid := l.Chunk
	if sh := shardsOf(lay, opts); sh != nil {
		grid = permute(sh[k], lay.perm)
		codecs = []any{map[string]any{"name": "sharding_indexed", "configuration": map[string]any{
			"chunk_shape": l.Chunk,
			"codecs":      codecs,
			"index_codecs": []any{
				map[string]any{"name": "bytes", "configuration": map[string]any{"endian": "little"}},
				map[string]any{"name": "crc32c"},
			},
			"index_location": "end",
		}}}
	}
	return map[string]any{
		"zarr_format": 3,
		"node_type":   "array",
		"shape":       l.Shape,
		"data_type":   lay.dtype.String(),
		"chunk_grid": map[string]any{"name": "regular",
			"configuration": map[string]any{"chunk_shape": grid}},
		"chunk_key_encoding": map[string]any{"name": "default",
			"configuration": map[string]any{"separator": "/"}},
		"fill_value":      0,
		"codecs":          codecs,
		"attributes":      map[string]any{},
		"dimension_names": names,
	}
}

// dtypeV2 is the NumPy type string of d in Zarr v2 metadata.
func dtypeV2(d loader.DType) string {
	return map[loader.DType]string{
		loader.Uint8: "|u1", loader.Int8: "|i1",
		loader.Uint16: "<u2", loader.Int16: "<i2",
		loader.Uint32: "<u4", loader.Int32: "<i4",
		loader.Uint64: "<u8", loader.Int64: "<i8",
		loader.Float32: "<f4", loader.Float64: "<f8",
	}[d]
}
