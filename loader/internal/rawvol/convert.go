package rawvol

// convert copies the stored plane src into dst (same length): samples of
// es bytes, byte-swapped when swap, and with channels interleaved samples
// per pixel in src rearranged to one whole plane per channel in dst.
func convert(dst, src []byte, es int, swap bool, channels int) {
	if channels <= 1 {
		switch {
		case !swap:
			if len(dst) > 0 && &dst[0] != &src[0] {
				copy(dst, src)
			}
		default:
			swapCopy(dst, src, es)
		}
		return
	}
	pixels := len(src) / (es * channels)
	stride := es * channels
	for c := 0; c < channels; c++ {
		out := dst[c*pixels*es : (c+1)*pixels*es]
		in := src[c*es:]
		switch {
		case es == 1:
			for i := range out {
				out[i] = in[i*stride]
			}
		case swap:
			for i := 0; i < pixels; i++ {
				o, s := out[i*es:i*es+es], in[i*stride:i*stride+es]
				for k := range o {
					o[k] = s[es-1-k]
				}
			}
		default:
			for i := 0; i < pixels; i++ {
				copy(out[i*es:i*es+es], in[i*stride:i*stride+es])
			}
		}
	}
}

// swapCopy copies src to dst reversing the bytes of every es-byte sample.
func swapCopy(dst, src []byte, es int) {
	switch es {
	case 1:
		copy(dst, src)
	case 2:
		for i := 0; i+1 < len(src); i += 2 {
			dst[i], dst[i+1] = src[i+1], src[i]
		}
	case 4:
		for i := 0; i+3 < len(src); i += 4 {
			dst[i], dst[i+1], dst[i+2], dst[i+3] = src[i+3], src[i+2], src[i+1], src[i]
		}
	case 8:
		for i := 0; i+7 < len(src); i += 8 {
			dst[i], dst[i+1], dst[i+2], dst[i+3] = src[i+7], src[i+6], src[i+5], src[i+4]
			dst[i+4], dst[i+5], dst[i+6], dst[i+7] = src[i+3], src[i+2], src[i+1], src[i]
		}
	}
}
