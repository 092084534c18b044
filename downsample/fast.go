package downsample

// meanU8 is meanInts with vector kernels for 2x2 and 2x2x2 blocks.
func meanU8(p *plan, dst, src []uint8) {
	var it rowIter
	it.init(p)
	var rows [maxRows][]uint8
	for it.next() {
		rs := gather(&it, src, &rows)
		d := dst[it.dst : it.dst+it.outN]
		switch {
		case it.horiz && len(rs) == 2:
			mean2x2U8(d, rs[0], rs[1])
		case it.horiz && len(rs) == 4:
			mean2x2x2U8(d, rs[0], rs[1], rs[2], rs[3])
		default:
			meanIntRow(d, rs, it.horiz)
		}
	}
}

// meanU16 is meanInts with vector kernels for 2x2 and 2x2x2 blocks.
func meanU16(p *plan, dst, src []uint16) {
	var it rowIter
	it.init(p)
	var rows [maxRows][]uint16
	for it.next() {
		rs := gather(&it, src, &rows)
		d := dst[it.dst : it.dst+it.outN]
		switch {
		case hostLE && it.horiz && len(rs) == 2:
			mean2x2U16(d, rs[0], rs[1])
		case hostLE && it.horiz && len(rs) == 4:
			mean2x2x2U16(d, rs[0], rs[1], rs[2], rs[3])
		default:
			meanIntRow(d, rs, it.horiz)
		}
	}
}

// useSIMD selects the archsimd kernels where they are built and the CPU
// has them; tests turn it off to check the portable kernels too.
var useSIMD = simdOK()

func mean2x2U8(d, a, b []uint8) {
	if useSIMD {
		d, a, b = simd2x2U8(d, a, b)
	}
	swar2x2U8(d, a, b)
}

func mean2x2x2U8(d, a, b, c, e []uint8) {
	if useSIMD {
		d, a, b, c, e = simd2x2x2U8(d, a, b, c, e)
	}
	swar2x2x2U8(d, a, b, c, e)
}

func mean2x2U16(d, a, b []uint16) {
	if useSIMD {
		d, a, b = simd2x2U16(d, a, b)
	}
	swar2x2U16(d, a, b)
}

func mean2x2x2U16(d, a, b, c, e []uint16) {
	if useSIMD {
		d, a, b, c, e = simd2x2x2U16(d, a, b, c, e)
	}
	swar2x2x2U16(d, a, b, c, e)
}
