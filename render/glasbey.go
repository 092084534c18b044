package render

import "math"

// glasbeyLUT builds a label palette in the manner of Glasbey et al. (2007):
// entry 0 is black, and each following entry is the colour of a 16-level
// RGB grid farthest (CIE L*a*b* distance) from every entry chosen before it
// and from the viewer's dark-grey background, so that neighbouring labels
// differ as much as the palette allows. It is deterministic.
func glasbeyLUT() (l [256][3]uint8) {
	const steps = 16
	type cand struct {
		rgb  [3]uint8
		lab  [3]float64
		dist float64
	}
	cands := make([]cand, 0, steps*steps*steps)
	for r := 0; r < steps; r++ {
		for g := 0; g < steps; g++ {
			for b := 0; b < steps; b++ {
				c := [3]uint8{uint8(r * 17), uint8(g * 17), uint8(b * 17)}
				cands = append(cands, cand{rgb: c, lab: toLab(c), dist: math.Inf(1)})
			}
		}
	}
	take := func(lab [3]float64) {
		for i := range cands {
			cands[i].dist = min(cands[i].dist, labDist(cands[i].lab, lab))
		}
	}
	take(toLab(background))
	take(toLab(l[0])) // black, for value 0
	for k := 1; k < 256; k++ {
		best := 0
		for i := range cands {
			if cands[i].dist > cands[best].dist {
				best = i
			}
		}
		l[k] = cands[best].rgb
		take(cands[best].lab)
	}
	return l
}

func labDist(a, b [3]float64) float64 {
	d0, d1, d2 := a[0]-b[0], a[1]-b[1], a[2]-b[2]
	return d0*d0 + d1*d1 + d2*d2
}

// toLab converts an sRGB colour to CIE L*a*b* (D65 white).
func toLab(c [3]uint8) [3]float64 {
	var lin [3]float64
	for i, v := range c {
		f := float64(v) / 255
		if f <= 0.04045 {
			lin[i] = f / 12.92
		} else {
			lin[i] = math.Pow((f+0.055)/1.055, 2.4)
		}
	}
	x := (0.4124*lin[0] + 0.3576*lin[1] + 0.1805*lin[2]) / 0.95047
	y := 0.2126*lin[0] + 0.7152*lin[1] + 0.0722*lin[2]
	z := (0.0193*lin[0] + 0.1192*lin[1] + 0.9505*lin[2]) / 1.08883
	fx, fy, fz := labF(x), labF(y), labF(z)
	return [3]float64{116*fy - 16, 500 * (fx - fy), 200 * (fy - fz)}
}

func labF(t float64) float64 {
	if t > 216.0/24389 {
		return math.Cbrt(t)
	}
	return (24389.0/27*t + 16) / 116
}
