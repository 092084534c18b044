package tiff

import (
	"bytes"

	"golang.org/x/image/ccitt"
)

// unFax decodes raw, CCITT Group 3 (1-D) or Group 4 coded rows of p, into
// out: rows of p.bw bits, each padded to a byte, as uncompressed bilevel
// rows are stored. As libtiff, it makes the runs the code calls white 0
// bits and the black ones 1 bits, whatever the photometric interpretation
// says the bits show (WhiteIsZero, the fax convention, or BlackIsZero).
func unFax(p *page, raw, out []byte) error {
	order := ccitt.MSB
	if p.lsbFirst {
		order = ccitt.LSB
	}
	srb := p.storedRow()
	rows := len(out) / srb
	if p.compression == cG3 && p.faxFill {
		return unFaxFill(raw, p.lsbFirst, p.bw, srb, out[:rows*srb])
	}
	sf := ccitt.Group4
	if p.compression == cG3 {
		sf = ccitt.Group3
	}
	r := ccitt.NewReader(bytes.NewReader(raw), order, sf, p.bw, rows, &ccitt.Options{Invert: true})
	return readFull(r, out)
}

// unFaxFill decodes Group 3 rows with fill bits: zeros before each EOL that
// end it on a byte boundary, which the ccitt package does not skip. Coded
// rows never hold 11 zeros in a row, so each run of at least 11 zeros and a
// one is an EOL; the bits up to the next one (the row's codes, then fill and
// the EOL's zeros) are decoded alone as one row after an EOL, their trailing
// zeros taken for an EOL the row's end lacks.
func unFaxFill(raw []byte, lsb bool, width, srb int, out []byte) error {
	bitAt := func(i int) byte {
		if lsb {
			return raw[i/8] >> (i % 8) & 1
		}
		return raw[i/8] >> (7 - i%8) & 1
	}
	n := len(raw) * 8
	row, start, zeros := 0, -1, 0
	seg := make([]byte, 0, 2+srb*2)
	decode := func(from, to int) error {
		seg = append(seg[:0], 0) // an EOL: 8 zeros, then 0001 in the next byte
		acc, k := byte(1<<4), 4
		for i := from; i < to; i++ {
			acc |= bitAt(i) << (7 - k)
			if k++; k == 8 {
				seg = append(seg, acc)
				acc, k = 0, 0
			}
		}
		seg = append(seg, acc)
		r := ccitt.NewReader(bytes.NewReader(seg), ccitt.MSB, ccitt.Group3, width, 1, &ccitt.Options{Invert: true})
		err := readFull(r, out[row*srb:(row+1)*srb])
		row++
		return err
	}
	for i := 0; i < n && row*srb < len(out); i++ {
		if bitAt(i) == 0 {
			zeros++
			continue
		}
		if zeros >= 11 {
			if start >= 0 {
				if err := decode(start, i); err != nil {
					return err
				}
			}
			start = i + 1
		}
		zeros = 0
	}
	if start >= 0 && start < n && row*srb < len(out) {
		if err := decode(start, n); err != nil {
			return err
		}
	}
	if row*srb < len(out) {
		return errShort
	}
	return nil
}
