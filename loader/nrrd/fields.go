package nrrd

import (
	"fmt"
	"strings"

	"vastview/base/textutil"
	"vastview/loader"
	"vastview/loader/internal/stream"
)

var typeNames = map[string]loader.DType{
	"signed char": loader.Int8, "int8": loader.Int8, "int8_t": loader.Int8,
	"uchar": loader.Uint8, "unsigned char": loader.Uint8, "uint8": loader.Uint8, "uint8_t": loader.Uint8,
	"short": loader.Int16, "short int": loader.Int16, "signed short": loader.Int16,
	"signed short int": loader.Int16, "int16": loader.Int16, "int16_t": loader.Int16,
	"ushort": loader.Uint16, "unsigned short": loader.Uint16, "unsigned short int": loader.Uint16,
	"uint16": loader.Uint16, "uint16_t": loader.Uint16,
	"int": loader.Int32, "signed int": loader.Int32, "int32": loader.Int32, "int32_t": loader.Int32,
	"uint": loader.Uint32, "unsigned int": loader.Uint32, "uint32": loader.Uint32, "uint32_t": loader.Uint32,
	"float": loader.Float32, "double": loader.Float64,
	"longlong": loader.Int64, "long long": loader.Int64, "long long int": loader.Int64, "signed long long": loader.Int64,
	"signed long long int": loader.Int64, "int64": loader.Int64, "int64_t": loader.Int64, "ulonglong": loader.Uint64,
	"unsigned long long": loader.Uint64, "unsigned long long int": loader.Uint64, "uint64": loader.Uint64,
	"uint64_t": loader.Uint64,
}

// sampleType returns the type named by the "type" field.
func sampleType(s string) (loader.DType, error) {
	name := strings.Join(strings.Fields(strings.ToLower(s)), " ")
	if dt, ok := typeNames[name]; ok {
		return dt, nil
	}
	switch {
	case name == "":
		return 0, formatError("the type field is missing")
	case name == "block":
		return 0, unsupported("block samples")
	}
	return 0, formatError("unknown type %q", textutil.Clip(s))
}

// codec returns the decoder of the "encoding" field, and whether the
// "byte skip" counts decoded bytes (compressed encodings) or file bytes.
func codec(s string, dt loader.DType) (c stream.Codec, decodedSkip bool, err error) {
	switch strings.ToLower(s) {
	case "raw":
		return stream.Codec{}, false, nil
	case "gz", "gzip":
		return stream.Gzip, true, nil
	case "bz2", "bzip2":
		return stream.Bzip2, true, nil
	case "txt", "text", "ascii":
		return stream.Text(dt), false, nil
	case "hex":
		return stream.Hex, false, nil
	case "":
		return c, false, formatError("the encoding field is missing")
	}
	return c, false, unsupported(fmt.Sprintf("encoding %q", textutil.Clip(s)))
}

// bigEndian interprets the "endian" field; it is needed when samples are
// wider than a byte and stored as bytes.
func bigEndian(s string, dt loader.DType, c stream.Codec) (bool, error) {
	switch strings.ToLower(s) {
	case "big":
		return true, nil
	case "little":
		return false, nil
	case "":
		if dt.Size() == 1 || c.Name == "text" {
			return false, nil
		}
		return false, formatError("the endian field is missing")
	}
	return false, formatError("unknown endian %q", textutil.Clip(s))
}

func formatError(format string, args ...any) error {
	return loader.Errorf("nrrd", format, args...)
}

func unsupported(feature string) error {
	return &loader.UnsupportedError{Format: "nrrd", Feature: feature}
}
