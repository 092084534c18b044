package rawvol

import (
	"fmt"
	"strconv"
	"strings"

	"vastview/base/textutil"
)

// MaxFiles bounds how many data files a header may name.
const MaxFiles = 1 << 20

// Pattern expands a printf-style data file name over min..max by step,
// which must give want names.
func Pattern(format, smin, smax, sstep string, want int) ([]string, error) {
	verb, ok := intFormat(format)
	if !ok {
		return nil, fmt.Errorf("data file pattern %q needs exactly one integer conversion", textutil.Clip(format))
	}
	lo, err1 := strconv.Atoi(smin)
	hi, err2 := strconv.Atoi(smax)
	step, err3 := strconv.Atoi(sstep)
	bad := func(v int) bool { return v < -1e9 || v > 1e9 }
	if err1 != nil || err2 != nil || err3 != nil || step == 0 || bad(lo) || bad(hi) || bad(step) || (hi-lo)/step < 0 {
		return nil, fmt.Errorf("data file range %q %q %q", textutil.Clip(smin), textutil.Clip(smax), textutil.Clip(sstep))
	}
	n := (hi-lo)/step + 1
	if n != want {
		return nil, fmt.Errorf("the data file pattern names %d files, the sizes need %d", n, want)
	}
	names := make([]string, n)
	for i := range names {
		names[i] = fmt.Sprintf(verb, lo+i*step)
	}
	return names, nil
}

// intFormat checks that format has exactly one integer conversion (%d,
// %i or %u with at most three characters of flags and width) and otherwise only %%
// escapes, and returns it with the conversion spelled %d.
func intFormat(format string) (string, bool) {
	out := []byte(format)
	verbs := 0
	for i := 0; i < len(out); i++ {
		if out[i] != '%' {
			continue
		}
		i++
		if i < len(out) && out[i] == '%' {
			continue
		}
		start := i
		for i < len(out) && strings.IndexByte("-+ 0123456789", out[i]) >= 0 {
			i++
		}
		if i-start > 3 || i >= len(out) || strings.IndexByte("diu", out[i]) < 0 {
			return "", false
		}
		out[i] = 'd'
		verbs++
	}
	return string(out), verbs == 1
}
