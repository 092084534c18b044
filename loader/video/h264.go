package video

import (
	"bytes"
	"encoding/hex"
	"strings"
)

// FFmpeg's H.264 decoder delivers monochrome (4:0:0) streams as yuv420p
// with neutral chroma, so ffprobe's pixel format cannot tell them from
// colour. The sequence parameter set in the stream's extradata can: its
// chroma_format_idc is 0.

// h264Mono reports whether H.264 extradata (an avcC record or Annex B NAL
// units) holds a sequence parameter set with chroma_format_idc 0.
func h264Mono(extra []byte) bool {
	sps := firstSPS(extra)
	if len(sps) < 4 {
		return false
	}
	switch sps[1] { // profile_idc: only these code chroma_format_idc
	case 100, 110, 122, 244, 44, 83, 86, 118, 128, 138, 139, 134, 135:
	default:
		return false
	}
	r := bitReader{b: unescapeRBSP(sps[4:])}
	r.ue() // seq_parameter_set_id
	idc := r.ue()
	return !r.bad && idc == 0
}

// firstSPS returns the first SPS NAL unit (header byte included).
func firstSPS(b []byte) []byte {
	if len(b) >= 8 && b[0] == 1 { // avcC
		if b[5]&0x1f == 0 {
			return nil
		}
		n := int(b[6])<<8 | int(b[7])
		if 8+n > len(b) {
			return nil
		}
		return b[8 : 8+n]
	}
	for len(b) > 0 { // Annex B
		i := bytes.Index(b, []byte{0, 0, 1})
		if i < 0 {
			return nil
		}
		b = b[i+3:]
		end := bytes.Index(b, []byte{0, 0, 1})
		if end < 0 {
			end = len(b)
		}
		if len(b) > 0 && b[0]&0x1f == 7 {
			return bytes.TrimRight(b[:end], "\x00")
		}
	}
	return nil
}

// unescapeRBSP removes emulation prevention bytes (00 00 03 -> 00 00).
func unescapeRBSP(b []byte) []byte {
	out := make([]byte, 0, len(b))
	zeros := 0
	for _, c := range b {
		if zeros >= 2 && c == 3 {
			zeros = 0
			continue
		}
		if c == 0 {
			zeros++
		} else {
			zeros = 0
		}
		out = append(out, c)
	}
	return out
}

// bitReader reads Exp-Golomb codes, most significant bit first; bad is
// set when a read runs past the end.
type bitReader struct {
	b   []byte
	pos int
	bad bool
}

func (r *bitReader) bit() uint32 {
	if r.pos >= 8*len(r.b) {
		r.bad = true
		return 0
	}
	v := uint32(r.b[r.pos/8]>>(7-r.pos%8)) & 1
	r.pos++
	return v
}

// ue reads an unsigned Exp-Golomb code.
func (r *bitReader) ue() uint32 {
	zeros := 0
	for r.bit() == 0 {
		if r.bad || zeros > 31 {
			r.bad = true
			return 0
		}
		zeros++
	}
	v := uint32(1)
	for range zeros {
		v = v<<1 | r.bit()
	}
	return v - 1
}

// parseHexDump decodes ffprobe's data dump ("00000000: 0164 000b ...
// ascii" lines; hex columns end before column 41 after the offset).
func parseHexDump(s string) []byte {
	var out []byte
	for _, line := range strings.Split(s, "\n") {
		_, rest, ok := strings.Cut(line, ": ")
		if !ok {
			continue
		}
		rest = rest[:min(len(rest), 40)]
		b, err := hex.DecodeString(strings.ReplaceAll(rest, " ", ""))
		if err != nil {
			return nil
		}
		out = append(out, b...)
	}
	return out
}
